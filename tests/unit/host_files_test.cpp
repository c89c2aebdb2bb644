// host::read_capped (and its pipe and stdin variants) and host::write_atomically: the one capped reader and the one atomic writer
// for the files a user names and the files cudoctor writes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "host/files.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::host {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

TEST(HostFiles, ReadCappedReadsTheWholeFile) {
    test::TempDir tmp;
    const auto file = tmp.write("a.txt", std::string(200000, 'x') + "end").string();
    const auto text = read_capped(file, 1u << 20);
    ASSERT_TRUE(text) << text.error().message;
    EXPECT_EQ(text->size(), 200003u);
    EXPECT_TRUE(text->ends_with("end"));
    // Exactly at the cap is allowed; one byte past it is not.
    EXPECT_TRUE(read_capped(file, 200003));
}

TEST(HostFiles, ReadCappedRefusesPastTheCap) {
    test::TempDir tmp;
    const auto file = tmp.write("big.json", std::string(1001, 'x')).string();
    const auto text = read_capped(file, 1000);
    ASSERT_FALSE(text);
    EXPECT_EQ(text.error().code, Errc::too_large);
    EXPECT_EQ(text.error().message, file + ": larger than 1000 bytes");
    const auto mib = read_capped(tmp.write("big2", std::string((1u << 20) + 1, 'x')).string(), 1u << 20);
    ASSERT_FALSE(mib);
    EXPECT_TRUE(mib.error().message.ends_with(": larger than 1 MiB")) << mib.error().message;
}

TEST(HostFiles, ReadCappedNamesWhatIsWrong) {
    test::TempDir tmp;
    const auto missing = read_capped(tmp.str() + "/nope", 100);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, Errc::not_found);
    EXPECT_EQ(missing.error().message, tmp.str() + "/nope: No such file or directory");

    const auto folder = read_capped(tmp.str(), 100);
    ASSERT_FALSE(folder);
    EXPECT_EQ(folder.error().code, Errc::io);
    EXPECT_EQ(folder.error().message, tmp.str() + ": not a regular file");

    // A FIFO is refused without waiting for a writer.
    const auto fifo = tmp.path() / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto from_fifo = read_capped(fifo.string(), 100);
    ASSERT_FALSE(from_fifo);
    EXPECT_EQ(from_fifo.error().message, fifo.string() + ": not a regular file");

    if (::geteuid() != 0) {  // root reads anything
        const auto locked = tmp.write("locked", "secret");
        fs::permissions(locked, fs::perms::none);
        const auto denied = read_capped(locked.string(), 100);
        ASSERT_FALSE(denied);
        EXPECT_EQ(denied.error().code, Errc::permission);
    }
}

TEST(HostFiles, WriteAtomicallyCreatesAndReplaces) {
    test::TempDir tmp;
    const auto file = (tmp.path() / "snap.json").string();
    ASSERT_TRUE(write_atomically(file, "first\n"));
    EXPECT_EQ(*read_capped(file, 100), "first\n");
    ASSERT_TRUE(write_atomically(file, "second, longer\n"));
    EXPECT_EQ(*read_capped(file, 100), "second, longer\n");
    EXPECT_EQ(names_in(tmp.path()), std::vector<std::string>{"snap.json"});  // no temporary file left
}

TEST(HostFiles, WriteAtomicallySetsTheExactModeWhenAsked) {
    test::TempDir tmp;
    const auto file = (tmp.path() / "run.sh").string();
    ASSERT_TRUE(write_atomically(file, "#!/bin/sh\n", 0750));
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0750u);
}

TEST(HostFiles, FailedWriteLeavesTheOldFileAndNoTemporary) {
    test::TempDir tmp;
    // The target is a folder: rename(2) cannot put a file over it, after the temporary was written.
    const auto folder = tmp.path() / "taken";
    fs::create_directory(folder);
    tmp.write("taken/inside", "old");
    const auto over_folder = write_atomically(folder.string(), "new");
    ASSERT_FALSE(over_folder);
    EXPECT_EQ(over_folder.error().code, Errc::io);
    EXPECT_TRUE(over_folder.error().message.starts_with("cannot write " + folder.string() + ": ")) << over_folder.error().message;
    EXPECT_EQ(*read_capped((folder / "inside").string(), 100), "old");
    EXPECT_EQ(names_in(tmp.path()), std::vector<std::string>{"taken"});

    // A folder we cannot write to: the old file stays as it was.
    if (::geteuid() != 0) {
        const auto ro = tmp.path() / "ro";
        fs::create_directory(ro);
        const auto file = tmp.write("ro/keep.txt", "old contents").string();
        fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
        const auto denied = write_atomically(file, "new contents");
        fs::permissions(ro, fs::perms::owner_all);
        ASSERT_FALSE(denied);
        EXPECT_EQ(*read_capped(file, 100), "old contents");
        EXPECT_EQ(names_in(ro), std::vector<std::string>{"keep.txt"});
    }
}

TEST(HostFiles, WriteFailingHalfwayKeepsTheOldFile) {
    test::TempDir tmp;
    const auto file = tmp.write("snapshot.json", "the old, whole snapshot").string();
    // A file-size limit makes write(2) fail part way (EFBIG), as a full disk would, even as root.
    struct rlimit old {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 4096;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    const auto written = write_atomically(file, std::string(100000, 'n'));
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
    ASSERT_FALSE(written);
    EXPECT_EQ(written.error().code, Errc::io);
    EXPECT_EQ(written.error().message, "cannot write " + file + ": File too large");
    EXPECT_EQ(*read_capped(file, 100), "the old, whole snapshot");
    EXPECT_EQ(names_in(tmp.path()), std::vector<std::string>{"snapshot.json"});
}

/// A pipe with `bytes` written into it by a thread; the read end as a path (/proc/self/fd/N).
struct FedPipe {
    int fds[2] = {-1, -1};
    std::thread writer;
    explicit FedPipe(std::string bytes) {
        if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
        writer = std::thread([this, b = std::move(bytes)] {
            std::size_t done = 0;
            while (done < b.size()) {
                const ssize_t n = ::write(fds[1], b.data() + done, b.size() - done);
                if (n <= 0) break;  // the reader gave up (EPIPE)
                done += static_cast<std::size_t>(n);
            }
            ::close(fds[1]);
        });
    }
    ~FedPipe() {
        ::close(fds[0]);  // first: a writer blocked on a full pipe gets EPIPE
        writer.join();
    }
    std::string path() const { return "/proc/self/fd/" + std::to_string(fds[0]); }
};

TEST(HostFiles, ReadCappedOrPipeReadsFilesAndPipes) {
    test::TempDir tmp;
    EXPECT_EQ(*read_capped_or_pipe(tmp.write("f", "a file\n").string(), 100), "a file\n");
    {
        FedPipe pipe(std::string(200000, 'p'));  // more than a pipe buffer: read as it comes
        const auto text = read_capped_or_pipe(pipe.path(), 1u << 20);
        ASSERT_TRUE(text) << text.error().message;
        EXPECT_EQ(text->size(), 200000u);
    }
    {
        ::signal(SIGPIPE, SIG_IGN);
        FedPipe pipe(std::string(5000, 'p'));
        const auto text = read_capped_or_pipe(pipe.path(), 1000);
        ASSERT_FALSE(text);
        EXPECT_EQ(text.error().code, Errc::too_large);
        EXPECT_EQ(text.error().message, pipe.path() + ": larger than 1000 bytes");
    }
    const auto folder = read_capped_or_pipe(tmp.str(), 100);
    ASSERT_FALSE(folder);
    EXPECT_EQ(folder.error().code, Errc::io);
    EXPECT_EQ(folder.error().message, tmp.str() + ": not a regular file or pipe");
    const auto device = read_capped_or_pipe("/dev/null", 100);
    ASSERT_FALSE(device);
    EXPECT_EQ(device.error().message, "/dev/null: not a regular file or pipe");
    const auto missing = read_capped_or_pipe(tmp.str() + "/nope", 100);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, Errc::not_found);
    EXPECT_TRUE(read_capped_or_pipe(tmp.write("big", std::string(101, 'x')).string(), 100).error().code == Errc::too_large);
}

TEST(HostFiles, ReadCappedStdinNamesStandardInput) {
    const int saved = ::dup(STDIN_FILENO);
    ASSERT_GE(saved, 0);
    auto from_stdin = [&](std::string bytes, std::size_t cap) {
        FedPipe pipe(std::move(bytes));
        ::dup2(pipe.fds[0], STDIN_FILENO);
        auto text = read_capped_stdin(cap);
        ::dup2(saved, STDIN_FILENO);
        return text;
    };
    ::signal(SIGPIPE, SIG_IGN);
    EXPECT_EQ(*from_stdin("a log\n", 100), "a log\n");
    const auto big = from_stdin(std::string(3u << 20, 'x'), 1u << 20);
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().code, Errc::too_large);
    EXPECT_EQ(big.error().message, "standard input: larger than 1 MiB");
    ::close(saved);
}

}  // namespace
}  // namespace cudoctor::host
