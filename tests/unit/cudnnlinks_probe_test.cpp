// The cuDNN probe's flattened-chain reading (cudnn-links-flattened's facts) on small machine
// images: a name counts as a copy only when it is a regular file of the real file's size and
// first bytes; links, a lone file, and files that differ say nothing.
#include <gtest/gtest.h>

#include <string>

#include "host/host.hpp"
#include "kb/kb.hpp"
#include "probe/context.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace cudnnlinks_probe_test {

const std::string kDir = "usr/lib/x86_64-linux-gnu";

/// What a shared library's bytes look like to the probe: `size` bytes starting with `tag`.
std::string library_bytes(const std::string& tag, std::size_t size = 8192) {
    std::string bytes(size, '\0');
    bytes.replace(0, tag.size(), tag);
    return bytes;
}

/// The cuDNN copies the probe records on the image in `root`.
std::vector<snapshot::Cudnn> probe_cudnn_of(const TempDir& root) {
    auto host = host::Host::rooted(root.str());
    EXPECT_TRUE(host);
    auto snap = probe::probe_machine(*host, kb::Kb::builtin(), probe::Options{.pythons = {}, .allow_processes = false});
    return snap.cudnn;
}

const snapshot::Cudnn* system_copy(const std::vector<snapshot::Cudnn>& all) {
    for (const auto& c : all)
        if (c.path == "/usr/lib/x86_64-linux-gnu") return &c;
    return nullptr;
}

TEST(CudnnlinksProbe, ThreeIdenticalFilesAreOneFlattenedChainBesideLinks) {
    TempDir root;
    const auto real = library_bytes(
        "\x7f"
        "ELF cudnn 9.1.0");
    for (const char* n : {"libcudnn.so.9.1.0", "libcudnn.so.9", "libcudnn.so"}) root.write(kDir + "/" + n, real);
    // libcudnn_ops as the archive ships it: one file and two links.
    root.write(kDir + "/libcudnn_ops.so.9.1.0", library_bytes("\x7f"
                                                              "ELF ops 9.1.0"));
    root.link(kDir + "/libcudnn_ops.so.9", "libcudnn_ops.so.9.1.0");
    root.link(kDir + "/libcudnn_ops.so", "libcudnn_ops.so.9");
    const auto all = probe_cudnn_of(root);
    const auto* c = system_copy(all);
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->flattened.size(), 1u);
    const auto& chain = c->flattened[0];
    EXPECT_EQ(chain.real_file, "libcudnn.so.9.1.0");
    EXPECT_EQ(chain.names, (std::vector<std::string>{"libcudnn.so.9.1.0", "libcudnn.so.9", "libcudnn.so"}));
    EXPECT_EQ(chain.copies, (std::vector<std::string>{"libcudnn.so.9", "libcudnn.so"}));
    EXPECT_EQ(chain.size, 8192u);
}

TEST(CudnnlinksProbe, AChainOfLinksIsNotFlattened) {
    TempDir root;
    root.write(kDir + "/libcudnn.so.9.1.0", library_bytes("\x7f"
                                                          "ELF cudnn 9.1.0"));
    root.link(kDir + "/libcudnn.so.9", "libcudnn.so.9.1.0");
    root.link(kDir + "/libcudnn.so", "libcudnn.so.9");
    const auto all = probe_cudnn_of(root);
    const auto* c = system_copy(all);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->flattened.empty());
}

TEST(CudnnlinksProbe, FilesOfAnotherSizeOrOtherFirstBytesAreNoCopies) {
    TempDir root;
    root.write(kDir + "/libcudnn.so.9.1.0", library_bytes("\x7f"
                                                          "ELF cudnn 9.1.0"));
    root.write(kDir + "/libcudnn.so.9", library_bytes("\x7f"
                                                      "ELF cudnn 9.0.0"));  // same size, another build
    root.write(kDir + "/libcudnn.so", library_bytes("\x7f"
                                                    "ELF cudnn 9.1.0",
                                                    4096));  // another size
    const auto all = probe_cudnn_of(root);
    const auto* c = system_copy(all);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->flattened.empty());
}

TEST(CudnnlinksProbe, ALoneSonameFileIsNoChain) {
    // A wheel's layout: libcudnn.so.9 and nothing it could be a copy of.
    TempDir root;
    root.write(kDir + "/libcudnn.so.9", library_bytes("\x7f"
                                                      "ELF cudnn 9"));
    root.write(kDir + "/libcudnn_ops.so.9", library_bytes("\x7f"
                                                          "ELF ops 9"));
    const auto all = probe_cudnn_of(root);
    const auto* c = system_copy(all);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(c->flattened.empty());
}

TEST(CudnnlinksProbe, AnotherReleaseBesideIsItsOwnChain) {
    // cuDNN 8.9.7 left beside 9.1.0; the SONAME name libcudnn.so.9 is a copy of 9.1.0 only, and
    // libcudnn.so (a copy of 8.9.7, from the first install) belongs to 8.9.7's chain.
    TempDir root;
    const auto v9 = library_bytes(
        "\x7f"
        "ELF cudnn 9.1.0");
    const auto v8 = library_bytes(
        "\x7f"
        "ELF cudnn 8.9.7");
    root.write(kDir + "/libcudnn.so.9.1.0", v9);
    root.write(kDir + "/libcudnn.so.9", v9);
    root.write(kDir + "/libcudnn.so.8.9.7", v8);
    root.link(kDir + "/libcudnn.so.8", "libcudnn.so.8.9.7");
    root.write(kDir + "/libcudnn.so", v8);
    const auto all = probe_cudnn_of(root);
    const auto* c = system_copy(all);
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->flattened.size(), 2u);
    EXPECT_EQ(c->flattened[0].real_file, "libcudnn.so.8.9.7");
    EXPECT_EQ(c->flattened[0].copies, (std::vector<std::string>{"libcudnn.so"}));
    EXPECT_EQ(c->flattened[1].real_file, "libcudnn.so.9.1.0");
    EXPECT_EQ(c->flattened[1].copies, (std::vector<std::string>{"libcudnn.so.9"}));
}

}  // namespace cudnnlinks_probe_test
}  // namespace cudoctor::test
