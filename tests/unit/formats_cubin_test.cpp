// The cubin reader, the PTX .entry reader, the host launch stubs and the entry decompression:
// real pieces cut from this machine's nvcc output (fuzz/corpus/cubin: one selector byte and a
// 4-byte uncompressed size, then the bytes) with exactly the kernels kernels_ext.cu defines, and
// hostile variants of them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "formats/cubin.hpp"
#include "formats/fatbin_payload.hpp"
#include "support/files.hpp"

using cudoctor::Errc;
using namespace cudoctor::formats;
using Names = std::vector<std::string>;

namespace {

/// The bytes of a cubin corpus seed, without its 5-byte prefix.
std::string seed(std::string_view name) {
    const std::string s = cudoctor::test::corpus("cubin", name);
    return s.size() < 5 ? std::string() : s.substr(5);
}
std::uint32_t seed_size(std::string_view name) {
    const std::string s = cudoctor::test::corpus("cubin", name);
    std::uint32_t n = 0;
    if (s.size() >= 5) std::memcpy(&n, s.data() + 1, 4);
    return n;
}

const Names kCubinOrder = {"_Z9fill_zeroPfi",
                           "_ZN3ops12scale_kernelIiLi3EEEvPT_S1_i",
                           "_ZN3ops12scale_kernelIdLi2EEEvPT_S1_i",
                           "_ZN3ops12scale_kernelIfLi1EEEvPT_S1_i",
                           "_Z10reduce_sumPKfPfi",
                           "add_one"};

FatbinEntry compressed(FatbinCompression c, std::uint64_t size) {
    FatbinEntry e;
    e.kind = FatbinKind::sass;
    e.arch = 80;
    e.compression = c;
    e.uncompressed_size = size;
    return e;
}

/// Offset of section header `index`'s field `field` in an ELF64 file.
std::size_t shdr(const std::string& elf, std::uint16_t index, std::size_t field) {
    std::uint64_t shoff = 0;
    std::memcpy(&shoff, elf.data() + 0x28, 8);
    return static_cast<std::size_t>(shoff) + index * 64u + field;
}

}  // namespace

TEST(FormatsCubin, EntryKernelsOfRealCubins) {
    EXPECT_EQ(cubin_kernels(seed("sm80_cubin")).value(), kCubinOrder);
    // -rdc keeps ops::twice as a function with its own .nv.info: still no kernel. The static
    // kernel gets a module-unique name there.
    auto rdc = cubin_kernels(seed("sm80_rdc_cubin")).value();
    ASSERT_EQ(rdc.size(), 6u);
    EXPECT_TRUE(rdc[0].starts_with("__nv_static_") && rdc[0].ends_with("__Z9fill_zeroPfi")) << rdc[0];
    EXPECT_EQ(Names(rdc.begin() + 1, rdc.end()), Names(kCubinOrder.begin() + 1, kCubinOrder.end()));
}

TEST(FormatsCubin, PtxEntries) {
    const Names ptx_order = {"add_one",
                             "_Z10reduce_sumPKfPfi",
                             "_Z9fill_zeroPfi",
                             "_ZN3ops12scale_kernelIfLi1EEEvPT_S1_i",
                             "_ZN3ops12scale_kernelIdLi2EEEvPT_S1_i",
                             "_ZN3ops12scale_kernelIiLi3EEEvPT_S1_i"};
    EXPECT_EQ(ptx_entries(seed("compute80_ptx")).value(), ptx_order);
    // A block comment sends the text through the every-character walk: the same answer.
    EXPECT_EQ(ptx_entries("/* .entry no( */\n" + seed("compute80_ptx")).value(), ptx_order);
    EXPECT_EQ(ptx_entries(".version 8.0\n// .entry fake(\n/* .entry fake2 */ .file 1 \".entry x.cu\"\n.visible .entry k$1 (\n"
                          ".weak .entry\tk2(\n.entry k$1(\n")
                  .value(),
              (Names{"k$1", "k2"}));
    EXPECT_EQ(ptx_entries(std::string(".version 8.0\n.entry k(\n\0\0\0", 24)).value(), Names{"k"});  // fatbin padding
    EXPECT_EQ(ptx_entries(".version 8.0\n.func notakernel()\n").value(), Names{});
    EXPECT_EQ(ptx_entries("\x7f"
                          "ELF")
                  .error()
                  .message,
              "not PTX text: no .version directive");
    EXPECT_EQ(ptx_entries(std::string(".version 8.0\0.entry k(", 23)).error().message, "not PTX text: a NUL byte at offset 12");
    EXPECT_EQ(ptx_entries(".version 8.0\n.entry (").error().message, "corrupt PTX: .entry at offset 13 is not followed by a name");
}

TEST(FormatsCubin, DecompressesLz4AndZstdEntriesExactly) {
    std::string out;
    const auto lz4 = compressed(FatbinCompression::lz4, seed_size("sm75_lz4_cubin"));
    ASSERT_TRUE(decompress_entry(seed("sm75_lz4_cubin"), lz4, out));
    EXPECT_EQ(out.size(), lz4.uncompressed_size);
    EXPECT_EQ(cubin_kernels(out).value(), kCubinOrder);
    const auto zstd = compressed(FatbinCompression::zstd, seed_size("sm80_zstd_cubin"));
    ASSERT_TRUE(decompress_entry(seed("sm80_zstd_cubin"), zstd, out));
    EXPECT_EQ(cubin_kernels(out).value(), kCubinOrder);
    const auto ptx = compressed(FatbinCompression::zstd, seed_size("compute80_zstd_ptx"));
    ASSERT_TRUE(decompress_entry(seed("compute80_zstd_ptx"), ptx, out));
    EXPECT_EQ(ptx_entries(out).value().size(), 6u);
}

TEST(FormatsCubin, HostileCompressedEntries) {
    std::string out;
    const std::string zstd = seed("sm80_zstd_cubin");
    const std::uint32_t size = seed_size("sm80_zstd_cubin");
    // The header lies about the size: the frame's own content size disagrees.
    auto e = decompress_entry(zstd, compressed(FatbinCompression::zstd, size + 1), out);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "fatbin entry at offset 0 (sm_80): zstd frame holds " + std::to_string(size) + " bytes, the header says " +
                                     std::to_string(size + 1));
    // Over the cap: refused before anything is allocated.
    e = decompress_entry(zstd, compressed(FatbinCompression::zstd, 1ull << 40), out);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().code, Errc::too_large);
    // Cut short, or garbage.
    e = decompress_entry(zstd.substr(0, zstd.size() / 2), compressed(FatbinCompression::zstd, size), out);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().code, Errc::parse);
    EXPECT_NE(e.error().message.find("corrupt zstd data"), std::string::npos) << e.error().message;
    e = decompress_entry("not zstd at all", compressed(FatbinCompression::zstd, size), out);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "fatbin entry at offset 0 (sm_80): not a zstd frame");
    const std::string lz4 = seed("sm75_lz4_cubin");
    const std::uint32_t lz4_size = seed_size("sm75_lz4_cubin");
    e = decompress_entry(lz4.substr(0, lz4.size() - 40), compressed(FatbinCompression::lz4, lz4_size), out);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "fatbin entry at offset 0 (sm_80): corrupt LZ4 data");
    e = decompress_entry(lz4, compressed(FatbinCompression::lz4, lz4_size - 1), out);
    ASSERT_FALSE(e);  // the data would write past the size the header gives
    EXPECT_EQ(e.error().message, "fatbin entry at offset 0 (sm_80): corrupt LZ4 data");
    e = decompress_entry(lz4, compressed(FatbinCompression::lz4, 0), out);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().message, "fatbin entry at offset 0 (sm_80): compressed, but its uncompressed size is 0");
}

TEST(FormatsCubin, HostileCubins) {
    const std::string good = seed("sm80_cubin");
    ASSERT_FALSE(good.empty());
    EXPECT_EQ(cubin_kernels("").error().message, "not an ELF file");
    EXPECT_EQ(cubin_kernels(good.substr(0, 40)).error().code, Errc::truncated);
    EXPECT_EQ(cubin_kernels(good.substr(0, good.size() / 2)).error().code, Errc::truncated);  // section headers cut off

    std::string x86 = good;
    cudoctor::test::put<std::uint16_t>(x86, 0x12, 62);
    EXPECT_EQ(cubin_kernels(x86).error().message, "not a cubin: ELF machine 62 (expected 190, CUDA)");

    // Find the symbol table (sh_type 2) and break it three ways.
    std::uint16_t shnum = 0, symtab = 0;
    std::memcpy(&shnum, good.data() + 0x3c, 2);
    for (std::uint16_t i = 1; i < shnum; ++i) {
        std::uint32_t type = 0;
        std::memcpy(&type, good.data() + shdr(good, i, 4), 4);
        if (type == 2) symtab = i;
    }
    ASSERT_NE(symtab, 0);
    std::string bad_link = good;
    cudoctor::test::put<std::uint32_t>(bad_link, shdr(good, symtab, 0x28), 999);
    EXPECT_EQ(cubin_kernels(bad_link).error().message,
              "corrupt cubin: the symbol table links to string table 999 of " + std::to_string(shnum) + " sections");
    std::string odd_size = good;
    std::uint64_t size = 0;
    std::memcpy(&size, good.data() + shdr(good, symtab, 0x20), 8);
    cudoctor::test::put<std::uint64_t>(odd_size, shdr(good, symtab, 0x20), size - 1);
    EXPECT_EQ(cubin_kernels(odd_size).error().message,
              "corrupt cubin: symbol table of " + std::to_string(size - 1) + " bytes is not a whole number of 24-byte entries");
    std::string past_end = good;
    cudoctor::test::put<std::uint64_t>(past_end, shdr(good, symtab, 0x18), good.size() - 8);
    EXPECT_EQ(cubin_kernels(past_end).error().code, Errc::truncated);
    // The last symbol is add_one, a kernel: point its name past the string table.
    std::uint64_t sym_offset = 0;
    std::memcpy(&sym_offset, good.data() + shdr(good, symtab, 0x18), 8);
    std::string bad_name = good;
    const std::size_t last = static_cast<std::size_t>(sym_offset + size - 24);
    cudoctor::test::put<std::uint32_t>(bad_name, last, 0x7fffffff);
    const auto e = cubin_kernels(bad_name);
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("names offset 2147483647, outside the string table"), std::string::npos) << e.error().message;
}

TEST(FormatsCubin, HostLaunchStubsNameTheKernels) {
    const auto stubs = host_stub_kernels(seed("rdc_host_object"));
    ASSERT_TRUE(stubs) << stubs.error().message;
    // extern "C" add_one: its stub is C++-mangled, its registered device name is plain.
    EXPECT_EQ(std::set<std::string>(stubs->begin(), stubs->end()), std::set<std::string>(kCubinOrder.begin(), kCubinOrder.end()));
    EXPECT_EQ(host_stub_kernels(seed("sm80_cubin")).value(), Names{});  // a cubin has no stubs
}
