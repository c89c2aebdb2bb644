// The fatbin header reader: real sections cut from nvcc output (fuzz corpus seeds) with exactly
// the targets nvcc was asked for, and hand-built hostile containers.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "formats/fatbin.hpp"
#include "support/files.hpp"

using cudoctor::Errc;
using namespace cudoctor::formats;

namespace {

using cudoctor::test::corpus;
using cudoctor::test::put;

/// One entry header (64 bytes) followed by `payload` zero bytes.
std::string entry(std::uint16_t kind, std::uint32_t arch, std::uint64_t flags, std::uint64_t payload, std::uint16_t major = 1,
                  std::uint16_t minor = 8) {
    std::string e(64 + payload, '\0');
    put<std::uint16_t>(e, 0, kind);
    put<std::uint16_t>(e, 2, 0x0101);
    put<std::uint32_t>(e, 4, 64);
    put<std::uint64_t>(e, 8, payload);
    put<std::uint16_t>(e, 0x18, minor);
    put<std::uint16_t>(e, 0x1a, major);
    put<std::uint32_t>(e, 0x1c, arch);
    put<std::uint64_t>(e, 0x28, flags);
    return e;
}

std::string container(const std::string& entries) {
    std::string c(16, '\0');
    put<std::uint32_t>(c, 0, kFatbinMagic);
    put<std::uint16_t>(c, 4, 1);
    put<std::uint16_t>(c, 6, 16);
    put<std::uint64_t>(c, 8, entries.size());
    return c + entries;
}

std::set<std::string> targets(const FatbinWalk& walk) {
    std::set<std::string> out;
    for (const auto& c : walk.containers)
        for (const auto& e : c.entries) out.insert(target_name(e));
    return out;
}

}  // namespace

TEST(FormatsFatbin, RealSectionsHoldExactlyTheRequestedTargets) {
    auto sass = walk_fatbin_section(corpus("fatbin", "sass.nv_fatbin"));  // -gencode …code=sm_75 -gencode …code=sm_86
    EXPECT_FALSE(sass.error);
    EXPECT_EQ(targets(sass), (std::set<std::string>{"sm_75", "sm_86"}));
    for (const auto& e : sass.containers.at(0).entries) {
        EXPECT_EQ(e.kind, FatbinKind::sass);
        EXPECT_EQ(e.version_major, 1);
        EXPECT_EQ(e.version_minor, 8);  // CUDA 13 cubin ABI
        EXPECT_EQ(e.compression, FatbinCompression::none);
    }
    auto ptx = walk_fatbin_section(corpus("fatbin", "ptx.nv_fatbin"));  // code=compute_80
    EXPECT_EQ(targets(ptx), (std::set<std::string>{"compute_80"}));
    const auto& p = ptx.containers.at(0).entries.at(0);
    EXPECT_EQ(p.compression, FatbinCompression::zstd);  // nvcc 13 compresses PTX by default
    EXPECT_EQ(p.version_major, 9);                      // PTX ISA 9.0
    EXPECT_EQ(p.version_minor, 0);
    EXPECT_GT(p.uncompressed_size, p.compressed_size);
    EXPECT_EQ(targets(walk_fatbin_section(corpus("fatbin", "family.nv_fatbin"))), (std::set<std::string>{"sm_100f", "compute_120f"}));
    auto lz4 = walk_fatbin_section(corpus("fatbin", "lz4.nv_fatbin"));  // --compress-mode=speed -Xfatbin -compress-all
    EXPECT_EQ(lz4.containers.at(0).entries.at(0).compression, FatbinCompression::lz4);
    EXPECT_EQ(targets(walk_fatbin_section(corpus("fatbin", "lto.nv_relfatbin"))), (std::set<std::string>{"lto_75"}));
    auto exe = walk_fatbin_section(corpus("fatbin", "exe_two_containers.nv_fatbin"));
    EXPECT_EQ(exe.containers.size(), 2u);
    EXPECT_EQ(targets(exe), (std::set<std::string>{"sm_89", "compute_89"}));
}

TEST(FormatsFatbin, FlagsNameTheTarget) {
    auto walk = walk_fatbin_section(container(entry(2, 90, 0x100011, 8) + entry(1, 100, 0x208011, 16, 9, 0) + entry(8, 75, 0x8011, 0)));
    ASSERT_FALSE(walk.error) << walk.error->message;
    EXPECT_EQ(targets(walk), (std::set<std::string>{"sm_90a", "compute_100f", "lto_75"}));
    const auto& es = walk.containers[0].entries;
    EXPECT_TRUE(es[0].arch_specific);
    EXPECT_TRUE(es[1].family_specific);
    EXPECT_EQ(es[1].compression, FatbinCompression::zstd);
    EXPECT_EQ(es[1].offset, 16u + 72u);
}

TEST(FormatsFatbin, ZeroPaddingBetweenContainersIsSkipped) {
    const std::string one = container(entry(2, 75, 0x11, 8));
    auto walk = walk_fatbin_section(one + std::string(16, '\0') + one + std::string(3, '\0'));
    EXPECT_FALSE(walk.error);
    EXPECT_EQ(walk.containers.size(), 2u);
    EXPECT_EQ(walk.containers[1].offset, one.size() + 16);
}

TEST(FormatsFatbin, OverflowingContainerSize) {
    std::string c = corpus("fatbin", "sass.nv_fatbin");
    put<std::uint64_t>(c, 8, 0xFFFFFFFFFFFFFFF0ull);  // header + this wraps around 2^64
    auto walk = walk_fatbin_section(c, 1000);
    ASSERT_TRUE(walk.error);
    EXPECT_EQ(walk.error->code, Errc::truncated);
    EXPECT_EQ(walk.error->message,
              "fatbin container at offset 1000: size 18446744073709551600 runs past the end (" + std::to_string(c.size()) + " bytes left)");
    EXPECT_TRUE(walk.containers.empty());
}

TEST(FormatsFatbin, OverflowingEntrySizesAndTinyHeaders) {
    std::string c = container(entry(2, 75, 0x11, 8));
    put<std::uint64_t>(c, 16 + 8, 0xFFFFFFFFFFFFFF00ull);
    auto bad_payload = parse_fatbin_container(c);
    ASSERT_FALSE(bad_payload);
    EXPECT_EQ(bad_payload.error().message, "fatbin entry at offset 16: payload size 18446744073709551360 runs past the end of its container");
    c = container(entry(2, 75, 0x11, 8));
    put<std::uint32_t>(c, 16 + 4, 8);
    EXPECT_EQ(parse_fatbin_container(c).error().message, "fatbin entry at offset 16: header size 8 (expected 64 to 65536)");
    c = container(entry(2, 75, 0x11, 8));
    put<std::uint16_t>(c, 4, 2);
    EXPECT_EQ(parse_fatbin_container(c).error().message, "fatbin container at offset 0: version 2 (expected 1)");
}

TEST(FormatsFatbin, TruncatedAndGarbage) {
    const std::string real = corpus("fatbin", "sass.nv_fatbin");
    auto cut = walk_fatbin_section(real.substr(0, 100));
    ASSERT_TRUE(cut.error);
    EXPECT_EQ(cut.error->code, Errc::truncated);
    auto garbage = walk_fatbin_section(real + "\x11\x22\x33\x44\x55\x66\x77\x88" + std::string(16, '\0'));
    ASSERT_TRUE(garbage.error);  // the first container is kept, the stray bytes reported
    EXPECT_EQ(garbage.containers.size(), 1u);
    EXPECT_EQ(garbage.error->message, "no fatbin container at offset " + std::to_string(real.size()) + " (magic is not 0xBA55ED50)");
    EXPECT_EQ(parse_fatbin_container("abc").error().code, Errc::truncated);
}

TEST(FormatsFatbin, EmbeddedContainersAreFoundOnlyWhenWhole) {
    const std::string real = corpus("fatbin", "sass.nv_fatbin");
    // At file offset 1000 + 24 = 1024 (8-aligned), between garbage.
    const std::string data = std::string(24, '\x11') + real + std::string(13, '\x22');
    auto found = find_embedded_fatbins(data, 1000);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].offset, 1024u);
    EXPECT_EQ(found[0].entries.size(), 2u);
    // The same bytes at a misaligned file offset are not a container.
    EXPECT_TRUE(find_embedded_fatbins(data, 1001).empty());
    // A magic whose entries do not walk exactly to the container end is not a container.
    std::string broken = real;
    put<std::uint64_t>(broken, 8, 0xFFFFFFFFFFFFFFF0ull);
    EXPECT_TRUE(find_embedded_fatbins(std::string(24, '\x11') + broken, 0).empty());
    EXPECT_TRUE(find_embedded_fatbins(std::string(64, '\x50'), 0).empty());
}
