// The start-up files probe (src/probe/startup_files.cpp) on small images in a temporary folder:
// what it records for each line, and hostile files (too large, binary, a link loop, unreadable)
// that give a note, never a crash, and do not stop the other files from being read.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "kb/kb.hpp"
#include "probe/context.hpp"
#include "probe/startup_files.hpp"
#include "support/temp_dir.hpp"

namespace shellrc_test {

using cudoctor::test::TempDir;

struct Probed {
    cudoctor::snapshot::Snapshot snap;
    /// The note about `path`, or "" when none.
    std::string note_on(const std::string& path) const {
        for (const auto& n : snap.notes)
            if (n.path == path) return n.message;
        return {};
    }
};

Probed probe(const TempDir& root) {
    Probed p;
    const auto host = cudoctor::host::Host::rooted(root.str());
    EXPECT_TRUE(host.has_value());
    const cudoctor::probe::Options options;
    cudoctor::probe::Context ctx(*host, cudoctor::kb::Kb::builtin(), options, p.snap);
    cudoctor::probe::read_startup_files(ctx);
    return p;
}

/// An image with one user, dev, and an nvcc in /usr/bin and in /usr/local/cuda-12.4/bin.
void base_image(const TempDir& root) {
    root.write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\ndev:x:1000:1000::/home/dev:/bin/bash\n");
    root.write("proc/self/environ", "HOME=/home/dev\nPATH=/usr/bin:/bin\n");
    root.write("usr/bin/nvcc", "#!/bin/sh\necho 11.5\n", true);
    root.write("usr/local/cuda-12.4/bin/nvcc", "#!/bin/sh\necho 12.4\n", true);
}

TEST(ShellrcProbe, RecordsLinesWithWhatTheImageSaysAboutThem) {
    TempDir root;
    base_image(root);
    root.write("home/dev/.bashrc",
               "# CUDA\n"
               "export PATH=$PATH:/usr/local/cuda-12.4/bin\n"
               "export PATH=/usr/local/cuda-11.2/bin:$PATH\n"
               "export CUDA_HOME=~/cuda-11.2\n"
               "export EDITOR=vim\n");
    root.write("etc/profile.d/cuda.sh", "export PATH=/usr/local/cuda-12.4/bin${PATH:+:${PATH}}\n");
    const auto p = probe(root);
    const auto& lines = p.snap.environment.startup_lines;
    ASSERT_EQ(lines.size(), 3u);  // EDITOR and CUDA_HOME (no /usr/local/cuda) are none of its business
    EXPECT_EQ(lines[0].file, "/etc/profile.d/cuda.sh");
    EXPECT_TRUE(lines[0].nvcc_before.empty());  // prepends
    EXPECT_EQ(lines[1].file, "/home/dev/.bashrc");
    EXPECT_EQ(lines[1].line, 2);
    EXPECT_EQ(lines[1].nvcc_before, "/usr/bin/nvcc");
    EXPECT_EQ(lines[1].appended_dir, "/usr/local/cuda-12.4/bin");
    EXPECT_TRUE(lines[1].missing_toolkits.empty());
    EXPECT_EQ(lines[2].line, 3);
    EXPECT_EQ(lines[2].missing_toolkits, std::vector<std::string>{"/usr/local/cuda-11.2"});
    EXPECT_FALSE(p.snap.environment.cuda_launch_blocking.has_value());
}

TEST(ShellrcProbe, AppendedCudaWithNoOtherNvccOrALinkToItselfProvesNothing) {
    TempDir root;
    base_image(root);
    std::filesystem::remove(root.path() / "usr/bin/nvcc");
    root.write("home/dev/.bashrc", "export PATH=$PATH:/usr/local/cuda-12.4/bin\n");
    EXPECT_TRUE(probe(root).snap.environment.startup_lines.at(0).nvcc_before.empty());
    // /usr/bin/nvcc a link to the toolkit's own nvcc: the same compiler wins either way.
    root.link("usr/bin/nvcc", "/usr/local/cuda-12.4/bin/nvcc");
    EXPECT_TRUE(probe(root).snap.environment.startup_lines.at(0).nvcc_before.empty());
}

TEST(ShellrcProbe, HostileFilesGiveNotesAndTheOthersAreStillRead) {
    TempDir root;
    base_image(root);
    root.write("home/dev/.bashrc", std::string(2u << 20, 'x'));  // 2 MiB
    std::string binary;
    for (int i = 0; i < 65536; ++i) binary += static_cast<char>((i * 131 + 7) & 0xff);
    root.write("home/dev/.zshrc", binary);
    root.link("home/dev/.bash_profile", "/home/dev/.bash_profile");  // a link to itself
    root.mkdir("home/dev/.profile");                                 // a folder, not a file
    root.write("root/.bashrc", "export CUDA_LAUNCH_BLOCKING=1\n");
    const auto unreadable = root.write("home/dev/.zprofile", "export CUDA_LAUNCH_BLOCKING=1\n");
    std::filesystem::permissions(unreadable, std::filesystem::perms::none);
    const auto p = probe(root);
    EXPECT_NE(p.note_on("/home/dev/.bashrc"), "");
    EXPECT_NE(p.note_on("/home/dev/.bash_profile"), "");
    EXPECT_NE(p.note_on("/home/dev/.profile"), "");
    EXPECT_EQ(p.note_on("/home/dev/.zshrc"), "");  // readable, just nothing this reader understands
    const auto& lines = p.snap.environment.startup_lines;
    const bool root_read = std::any_of(lines.begin(), lines.end(), [](const auto& l) { return l.file == "/root/.bashrc"; });
    EXPECT_TRUE(root_read);
    if (::geteuid() != 0) {  // root reads a mode-000 file anyway
        EXPECT_NE(p.note_on("/home/dev/.zprofile"), "");
        EXPECT_EQ(lines.size(), 1u);
    }
    std::filesystem::permissions(unreadable, std::filesystem::perms::owner_all);
}

TEST(ShellrcProbe, LaunchBlockingFromTheEnvironment) {
    TempDir root;
    base_image(root);
    root.write("proc/self/environ", "HOME=/home/dev\nCUDA_LAUNCH_BLOCKING=1\n");
    EXPECT_EQ(probe(root).snap.environment.cuda_launch_blocking, "1");
}

}  // namespace shellrc_test
