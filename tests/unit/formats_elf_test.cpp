// The ELF64 header reader: real objects made by nvcc (the fuzz corpus seeds) and hand-cut
// hostile variants, with the exact error text asserted.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "formats/elf.hpp"
#include "support/files.hpp"

using cudoctor::Errc;
using namespace cudoctor::formats;

namespace {

using cudoctor::test::corpus;

void put64(std::string& s, std::size_t at, std::uint64_t v) { std::memcpy(s.data() + at, &v, 8); }
void put16(std::string& s, std::size_t at, std::uint16_t v) { std::memcpy(s.data() + at, &v, 2); }

}  // namespace

TEST(FormatsElf, RealObjectFromNvcc) {
    const std::string bytes = corpus("elf", "sass.o");  // nvcc -c -gencode …sm_75 -gencode …sm_86
    auto elf = parse_elf(bytes);
    ASSERT_TRUE(elf) << elf.error().message;
    EXPECT_EQ(elf->type, 1);
    EXPECT_EQ(elf->machine, 62);
    EXPECT_EQ(elf_kind(*elf), "relocatable object");
    const auto* fatbin = find_section(*elf, ".nv_fatbin");
    ASSERT_NE(fatbin, nullptr);
    EXPECT_TRUE(fatbin->in_file());
    auto data = section_bytes(bytes, *fatbin);
    ASSERT_TRUE(data);
    EXPECT_EQ(data->size(), fatbin->size);
    EXPECT_EQ(data->substr(0, 4), std::string("\x50\xed\x55\xba", 4));  // the container magic, as readelf shows it
    EXPECT_NE(find_section(*elf, ".nvFatBinSegment"), nullptr);
    EXPECT_EQ(find_section(*elf, ".no_such_section"), nullptr);
}

TEST(FormatsElf, NotAnElf) {
    for (const std::string& bytes : {std::string(), std::string("#!/bin/sh\necho hi\n"),
                                     std::string("\x7f"
                                                 "EL")}) {
        auto elf = parse_elf(bytes);
        ASSERT_FALSE(elf);
        EXPECT_EQ(elf.error().code, Errc::parse);
        EXPECT_EQ(elf.error().message, "not an ELF file");
    }
    EXPECT_FALSE(is_elf("#!/bin/sh"));
    EXPECT_TRUE(
        is_elf("\x7f"
               "ELF\x02"));
}

TEST(FormatsElf, ThirtyTwoBitAndBigEndianAreUnsupported) {
    std::string bytes = corpus("elf", "sass.o");
    bytes[4] = 1;
    EXPECT_EQ(parse_elf(bytes).error().code, Errc::unsupported);
    bytes[4] = 2;
    bytes[5] = 2;
    EXPECT_EQ(parse_elf(bytes).error().message, "big-endian ELF files are not supported");
}

TEST(FormatsElf, TruncatedFileHeader) {
    const std::string bytes = corpus("elf", "sass.o").substr(0, 40);
    auto elf = parse_elf(bytes);
    ASSERT_FALSE(elf);
    EXPECT_EQ(elf.error().code, Errc::truncated);
    EXPECT_EQ(elf.error().message, "truncated ELF: file header (offset 0, 64 bytes) runs past the end of the file (40 bytes)");
}

TEST(FormatsElf, SectionHeadersPastTheEnd) {
    std::string bytes = corpus("elf", "sass.o");
    put64(bytes, 0x28, bytes.size() + 4096);
    auto elf = parse_elf(bytes);
    ASSERT_FALSE(elf);
    EXPECT_EQ(elf.error().code, Errc::truncated);
    EXPECT_EQ(elf.error().message, "truncated ELF: section header table (offset " + std::to_string(bytes.size() + 4096) +
                                       ", 64 bytes) runs past the end of the file (" + std::to_string(bytes.size()) + " bytes)");
    // A file cut inside its section header table (they sit at the end of an object).
    const std::string cut = corpus("elf", "sass.o").substr(0, bytes.size() - 200);
    auto short_elf = parse_elf(cut);
    ASSERT_FALSE(short_elf);
    EXPECT_EQ(short_elf.error().code, Errc::truncated);
    EXPECT_NE(short_elf.error().message.find("section header table of"), std::string::npos) << short_elf.error().message;
}

TEST(FormatsElf, HugeSectionCountCannotOverflow) {
    std::string bytes = corpus("elf", "sass.o");
    put16(bytes, 0x3c, 0);  // the count moves into section 0's sh_size …
    const std::uint64_t shoff = [&] {
        std::uint64_t v;
        std::memcpy(&v, bytes.data() + 0x28, 8);
        return v;
    }();
    put64(bytes, shoff + 0x20, 0x0400000000000001ull);  // … where 64 × it wraps around 2^64
    auto elf = parse_elf(bytes);
    ASSERT_FALSE(elf);
    EXPECT_EQ(elf.error().code, Errc::truncated);
}

TEST(FormatsElf, CorruptNameTableIndexAndEntrySize) {
    std::string bytes = corpus("elf", "sass.o");
    put16(bytes, 0x3e, 0x7fff);
    auto elf = parse_elf(bytes);
    ASSERT_FALSE(elf);
    EXPECT_EQ(elf.error().code, Errc::parse);
    EXPECT_NE(elf.error().message.find("corrupt ELF: section name table index 32767 is not below the section count"), std::string::npos)
        << elf.error().message;
    bytes = corpus("elf", "sass.o");
    put16(bytes, 0x3a, 40);
    EXPECT_EQ(parse_elf(bytes).error().message, "corrupt ELF: section header entry size 40 (expected 64)");
}

TEST(FormatsElf, SectionBytesPastTheEndAreReportedNotRead) {
    const std::string bytes = corpus("elf", "sass.o");
    ElfSection s;
    s.name = ".nv_fatbin";
    s.type = 1;
    s.offset = bytes.size() - 10;
    s.size = 0xffffffffffffff00ull;  // offset + size overflows
    auto data = section_bytes(bytes, s);
    ASSERT_FALSE(data);
    EXPECT_EQ(data.error().code, Errc::truncated);
    EXPECT_EQ(data.error().message, "section .nv_fatbin (offset " + std::to_string(bytes.size() - 10) + ", " +
                                        std::to_string(0xffffffffffffff00ull) + " bytes) runs past the end of the file (" +
                                        std::to_string(bytes.size()) + " bytes)");
    s.type = kElfSectionNobits;  // .bss: no bytes in the file, nothing to check
    EXPECT_TRUE(section_bytes(bytes, s));
}
