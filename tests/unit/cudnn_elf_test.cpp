// What a cuDNN library says about the CUDA it is built for, read without loading it: the
// DT_NEEDED entries of cuDNN 8's sub-libraries (formats::needed_libraries) and the library names
// cuDNN 9's engines keep as text (formats::library_names_in). Real shared objects: the fixture
// stubs built by tests/fixtures/build_roots.sh, and this machine's cuDNN 9 where it has one.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "formats/elf.hpp"
#include "host/mapped_file.hpp"
#include "support/files.hpp"

namespace {

using namespace cudoctor::formats;
using cudoctor::Errc;
namespace fs = std::filesystem;

const std::string kCopiedLib =
    std::string(CUDOCTOR_ROOTS_DIR) + "/ubuntu2204-cudnn8-copied-cuda12/usr/local/cuda-12.4/targets/x86_64-linux/lib";

const std::vector<std::string_view> kStems = {"libcublasLt", "libcublas", "libnvrtc"};

}  // namespace

TEST(CudnnElf, NeededLibrariesOfACudnn8SubLibrary) {
    const std::string bytes = cudoctor::test::slurp(kCopiedLib + "/libcudnn_ops_infer.so.8.9.7");
    ASSERT_FALSE(bytes.empty());
    auto elf = parse_elf(bytes);
    ASSERT_TRUE(elf) << elf.error().message;
    auto needed = needed_libraries(bytes, *elf);
    ASSERT_TRUE(needed) << needed.error().message;
    ASSERT_GE(needed->size(), 2u);
    EXPECT_EQ((*needed)[0], "libcublas.so.11");
    EXPECT_EQ((*needed)[1], "libcublasLt.so.11");
}

TEST(CudnnElf, AnObjectFileNeedsNothing) {
    const std::string bytes = cudoctor::test::corpus("elf", "sass.o");
    auto elf = parse_elf(bytes);
    ASSERT_TRUE(elf) << elf.error().message;
    auto needed = needed_libraries(bytes, *elf);
    ASSERT_TRUE(needed) << needed.error().message;
    EXPECT_TRUE(needed->empty());
}

TEST(CudnnElf, ADynamicSectionLinkedToNoSectionIsCorrupt) {
    std::string bytes = cudoctor::test::slurp(kCopiedLib + "/libcudnn_cnn_infer.so.8.9.7");
    auto elf = parse_elf(bytes);
    ASSERT_TRUE(elf) << elf.error().message;
    std::uint64_t shoff = 0;
    std::memcpy(&shoff, bytes.data() + 0x28, 8);
    std::size_t index = 0;
    while (index < elf->sections.size() && elf->sections[index].type != kElfSectionDynamic) ++index;
    ASSERT_LT(index, elf->sections.size());
    const std::uint32_t bad = 999;
    std::memcpy(bytes.data() + shoff + index * 64 + 0x28, &bad, 4);
    elf = parse_elf(bytes);
    ASSERT_TRUE(elf) << elf.error().message;
    auto needed = needed_libraries(bytes, *elf);
    ASSERT_FALSE(needed);
    EXPECT_EQ(needed.error().code, Errc::parse);
    EXPECT_EQ(needed.error().message, "corrupt ELF: the dynamic section links to section 999 of " + std::to_string(elf->sections.size()));
}

TEST(CudnnElf, LibraryNamesInText) {
    using namespace std::string_literals;
    const std::string text =
        "\0cannot open libcublasLt.so.13\0libnvrtc.so.13\0libcublasLt.so.13\0libnvrtc-builtins.so.13.0\0"
        "xlibcublas.so.12\0libcublas.so.\0libcublas.so.11.2\0"s;
    EXPECT_EQ(library_names_in(text, kStems), (std::vector<std::string>{"libcublasLt.so.13", "libnvrtc.so.13", "libcublas.so.11"}));
    EXPECT_TRUE(library_names_in("no names here", kStems).empty());
    EXPECT_TRUE(library_names_in("", kStems).empty());
}

TEST(CudnnElf, ThisMachinesCudnn9EngineNamesItsCudaLibraries) {
    const fs::path lib = "/usr/local/cuda-13.0/lib/libcudnn_engines_precompiled.so.9";
    if (!fs::exists(lib)) GTEST_SKIP() << "no cuDNN 9 engines library here";
    const auto host = cudoctor::host::Host::real();
    auto file = cudoctor::host::MappedFile::open(host, lib.string());  // 245 MB: map it, read one section
    ASSERT_TRUE(file) << file.error().message;
    const std::string_view bytes = file->bytes();
    auto elf = parse_elf(bytes);
    ASSERT_TRUE(elf) << elf.error().message;
    const auto* rodata = find_section(*elf, ".rodata");
    ASSERT_NE(rodata, nullptr);
    auto text = section_bytes(bytes, *rodata);
    ASSERT_TRUE(text);
    const auto names = library_names_in(*text, kStems);
    EXPECT_NE(std::find(names.begin(), names.end(), "libcublasLt.so.13"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "libnvrtc.so.13"), names.end());
}
