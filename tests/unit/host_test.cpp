#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "host/host.hpp"
#include "support/temp_dir.hpp"

using cudoctor::Errc;
using cudoctor::host::Host;
using cudoctor::test::TempDir;

namespace {

Host rooted(const TempDir& dir) {
    auto h = Host::rooted(dir.str());
    if (!h) throw std::runtime_error(h.error().message);
    return *h;
}

}  // namespace

TEST(Host, RootedPathsStayInsideTheRoot) {
    TempDir t;
    t.write("usr/local/cuda-12.4/version.json", "{}");
    t.link("usr/local/cuda", "/usr/local/cuda-12.4");     // absolute target: re-rooted
    t.link("usr/local/escape", "../../../../../../etc");  // ".." never climbs out of the root
    t.mkdir("etc");
    t.write("etc/marker", "inside");
    auto host = rooted(t);
    EXPECT_EQ(*host.resolve("/usr/local/cuda"), "/usr/local/cuda-12.4");
    EXPECT_EQ(*host.resolve("/usr/local/cuda/version.json"), "/usr/local/cuda-12.4/version.json");
    EXPECT_EQ(*host.resolve("/usr/local/escape/marker"), "/etc/marker");
    EXPECT_EQ(*host.read_file("/usr/local/escape/marker"), "inside");
    EXPECT_EQ(*host.read_file("/usr/local/cuda/version.json"), "{}");
}

TEST(Host, RelativeLinksResolveFromTheirFolder) {
    TempDir t;
    t.write("usr/bin/gcc-12", "#!/bin/sh\n", true);
    t.link("usr/bin/gcc", "gcc-12");
    auto host = rooted(t);
    EXPECT_EQ(*host.resolve("/usr/bin/gcc"), "/usr/bin/gcc-12");
    EXPECT_EQ(*host.read_link("/usr/bin/gcc"), "gcc-12");
    EXPECT_TRUE(host.is_executable_file("/usr/bin/gcc"));
    EXPECT_EQ(host.lstat("/usr/bin/gcc")->type, cudoctor::host::FileType::symlink);
}

TEST(Host, SymlinkLoopIsAnErrorNotAHang) {
    TempDir t;
    t.link("usr/local/cuda-a", "/usr/local/cuda-b");
    t.link("usr/local/cuda-b", "/usr/local/cuda-a");
    t.link("usr/local/self", "self");
    auto host = rooted(t);
    auto r = host.resolve("/usr/local/cuda-a/version.json");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::loop);
    EXPECT_EQ(host.read_file("/usr/local/self").error().code, Errc::loop);
    EXPECT_FALSE(host.exists("/usr/local/self"));
}

TEST(Host, DanglingLinkIsNotFound) {
    TempDir t;
    t.link("usr/local/cuda", "/usr/local/cuda-11.0");
    auto host = rooted(t);
    EXPECT_EQ(host.resolve("/usr/local/cuda").error().code, Errc::not_found);
    EXPECT_EQ(*host.read_link("/usr/local/cuda"), "/usr/local/cuda-11.0");
    EXPECT_EQ(host.lstat("/usr/local/cuda")->type, cudoctor::host::FileType::symlink);
}

TEST(Host, ReadIsCappedAndDoesNotTrustSize) {
    TempDir t;
    t.write("small", "12345");
    auto big = t.write("big", "");
    ::truncate(big.c_str(), 1LL << 30);  // a 1 GiB sparse file where a small one is expected
    auto host = rooted(t);
    EXPECT_EQ(*host.read_file("/small", 5), "12345");
    auto r = host.read_file("/small", 4);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::too_large);
    EXPECT_EQ(r.error().message, "/small: larger than 4 bytes");
    EXPECT_EQ(host.read_file("/big").error().code, Errc::too_large);
    EXPECT_EQ(host.read_head("/big", 16)->size(), 16u);
    // /proc files report size 0 but have content: read until end of file.
    auto real = Host::real();
    auto osrelease = real.read_file("/proc/sys/kernel/osrelease");
    ASSERT_TRUE(osrelease);
    EXPECT_FALSE(osrelease->empty());
}

TEST(Host, FoldersAndFifosAreNotRead) {
    TempDir t;
    t.mkdir("dir");
    ASSERT_EQ(::mkfifo((t.path() / "fifo").c_str(), 0600), 0);
    auto host = rooted(t);
    auto d = host.read_file("/dir");
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().message, "/dir: not a regular file");
    EXPECT_EQ(host.read_file("/fifo").error().message, "/fifo: not a regular file");  // and no hang
    EXPECT_EQ(host.read_file("/missing").error().code, Errc::not_found);
}

TEST(Host, ListAndGlobAreSortedMachinePaths) {
    TempDir t;
    t.mkdir("usr/local/cuda-12.4");
    t.mkdir("usr/local/cuda-11.8");
    t.mkdir("usr/local/bin");
    auto host = rooted(t);
    EXPECT_EQ(*host.list_dir("/usr/local"), (std::vector<std::string>{"bin", "cuda-11.8", "cuda-12.4"}));
    EXPECT_EQ(host.glob("/usr/local", "cuda-*"), (std::vector<std::string>{"/usr/local/cuda-11.8", "/usr/local/cuda-12.4"}));
    EXPECT_TRUE(host.glob("/nonexistent", "*").empty());
}

TEST(Host, EnvironmentOfAnImageComesFromItsEnvironFile) {
    TempDir t;
    static constexpr char kEnviron[] = "PATH=/usr/local/cuda/bin:/usr/bin\0CUDA_HOME=/usr/local/cuda\0EMPTY=\0";
    t.write("proc/self/environ", std::string(kEnviron, sizeof kEnviron - 1));
    auto host = rooted(t);
    EXPECT_EQ(host.env("PATH"), "/usr/local/cuda/bin:/usr/bin");
    EXPECT_EQ(host.env("CUDA_HOME"), "/usr/local/cuda");
    EXPECT_EQ(host.env("EMPTY"), "");
    EXPECT_EQ(host.env("HOME"), std::nullopt);  // never the real process environment

    TempDir bare;
    EXPECT_TRUE(rooted(bare).environment().empty());
}

TEST(Host, ParseEnvironAcceptsNewlinesAndSkipsJunk) {
    auto env = cudoctor::host::parse_environ("A=1\nB=x=y\r\n=nokey\nnoequals\n\nC=\n");
    EXPECT_EQ(env.size(), 3u);
    EXPECT_EQ(env["A"], "1");
    EXPECT_EQ(env["B"], "x=y");
    EXPECT_EQ(env["C"], "");
}

TEST(Host, RootMustBeAFolder) {
    auto h = Host::rooted("/nonexistent/cudoctor-root");
    ASSERT_FALSE(h);
    EXPECT_EQ(h.error().code, Errc::not_found);
}

TEST(Host, RunCapturesOutputAndExitCode) {
    TempDir t;
    t.write("bin/tool", "#!/bin/sh\necho out; echo err >&2; exit 3\n", true);
    auto r = Host::real().run({(t.path() / "bin/tool").string()}, std::chrono::milliseconds(5000));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->out, "out\n");
    EXPECT_EQ(r->err, "err\n");
    EXPECT_EQ(r->exit_code, 3);
}

TEST(Host, RunKillsAHangingChildAndItsChildren) {
    TempDir t;
    // A child that never answers and starts a grandchild holding the pipe open.
    const std::string hang = t.write("bin/hang", "#!/bin/sh\nsleep 30 &\nsleep 30\n", true).string();
    const auto start = std::chrono::steady_clock::now();
    auto r = Host::real().run({hang, "--version"}, std::chrono::milliseconds(300));
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::timeout);
    EXPECT_EQ(r.error().message, hang + ": no answer within 300 ms (killed)");
    EXPECT_LT(took, std::chrono::seconds(10));  // a hang guard, not a speed assertion
}

TEST(Host, RunMissingProgram) {
    TempDir t;
    const auto host = Host::real();
    EXPECT_EQ(host.run({(t.path() / "bin/nvcc").string()}, std::chrono::milliseconds(100)).error().code, Errc::not_found);
    EXPECT_EQ(host.run({}, std::chrono::milliseconds(100)).error().code, Errc::usage);
}

TEST(Host, ARootedHostRunsNothingOfTheImage) {
    TempDir t;
    const auto marker = t.path() / "ran";
    t.write("bin/tool", "#!/bin/sh\ntouch '" + marker.string() + "'\n", true);
    const auto host = rooted(t);
    auto r = host.run({"/bin/tool"}, std::chrono::milliseconds(5000));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::permission);
    EXPECT_EQ(r.error().message, "/bin/tool: not run: inside a machine image");
    EXPECT_FALSE(std::filesystem::exists(marker));
    // Errors for the user say a path is the image's; Host's own errors (they go into snapshots) do not.
    EXPECT_EQ(host.in_image(host.read_file("/bin/none").error()).message,
              "/bin/none: No such file or directory (inside the image " + host.root() + ")");
    EXPECT_EQ(Host::real().in_image(cudoctor::Error{Errc::io, "/x: broken"}).message, "/x: broken");
}
