// parse_makeself_header on headers written by Debian's makeself 2.4.5 (made here), on the
// layouts of NVIDIA's fork and of makeself 2.1.x (formats.md 2.2), and on broken headers.
#include <gtest/gtest.h>

#include "formats/makeself.hpp"
#include "unit/installer_archives.hpp"

namespace cudoctor::test {
namespace {

using formats::MakeselfFamily;
using formats::parse_makeself_header;
using formats::PayloadCompression;

std::string upstream_header(const std::string& vars, int filler_lines = 20) {
    std::string h = "#!/bin/sh\n# This script was generated using Makeself 2.4.5\n" + vars;
    for (int i = 0; i < filler_lines; ++i) h += "# filler\n";
    h += "MS_Decompress()\n{\n        eval \"gzip -cd\"\n}\n";
    return h;
}

}  // namespace

TEST(FormatsMakeself, RealGzipHeaderFromMakeself245) {
    TempDir t;
    const auto f = make_makeself(t, "a.run");
    const auto bytes = slurp(f);
    auto h = parse_makeself_header(bytes, true);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->family, MakeselfFamily::upstream);
    EXPECT_EQ(h->makeself_version, "2.4.5");
    EXPECT_EQ(h->label, "Test Installer 1.0");
    EXPECT_EQ(h->script, "./install.sh");
    EXPECT_EQ(h->target_dir, "payload");
    EXPECT_EQ(h->compression, PayloadCompression::gzip);
    EXPECT_EQ(h->decompress_command, "gzip -cd");
    // The offset is what `head -n $skip | wc -c` gives, and the gzip stream starts there.
    const auto skip = header_value(f, "skip");
    EXPECT_EQ(h->header_lines, std::stoull(skip));
    const auto wc = tool({"/bin/sh", "-c", "head -n " + skip + " '" + f.string() + "' | wc -c"});
    EXPECT_EQ(h->payload_offset, std::stoull(wc));
    EXPECT_EQ(bytes.substr(h->payload_offset, 2), "\x1f\x8b");
    ASSERT_EQ(h->payloads.size(), 1u);
    EXPECT_EQ(h->payloads[0].size, std::stoull(header_value(f, "filesizes")));
    EXPECT_EQ(h->total_size, h->payloads[0].size);
    EXPECT_EQ(h->payload_offset + *h->total_size, bytes.size());
    EXPECT_EQ(h->payloads[0].md5, header_value(f, "MD5"));
    EXPECT_FALSE(h->payloads[0].sha256);  // 64 zeros: absent
    EXPECT_EQ(h->payloads[0].crc, std::stoul(header_value(f, "CRCsum")));
    EXPECT_TRUE(h->uncompressed_kib);
}

TEST(FormatsMakeself, RealXzHeaderWithSha256) {
    TempDir t;
    const auto f = make_makeself(t, "x.run", {"--xz", "--sha256"});
    auto h = parse_makeself_header(slurp(f), true);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->compression, PayloadCompression::xz);
    EXPECT_EQ(h->decompress_command, "xz -d");
    EXPECT_EQ(h->payloads[0].sha256, header_value(f, "SHA"));
}

TEST(FormatsMakeself, CudaRunfileShape) {
    // A CUDA toolkit runfile is an upstream makeself archive (formats.md 2.6): label, the
    // cuda-installer script and the pkg folder, made here with the same options NVIDIA documents.
    TempDir t;
    const auto f = make_makeself(t, "cuda_12.9.1_575.57.08_linux.run", {}, "CUDA Installer", "pkg");
    auto h = parse_makeself_header(slurp(f), true);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->label, "CUDA Installer");
    EXPECT_EQ(h->target_dir, "pkg");
}

TEST(FormatsMakeself, NvidiaForkLayout) {
    TempDir t;
    const auto f = make_nvidia_fork(t, "NVIDIA-Linux-x86_64-550.54.14.run");
    const auto bytes = slurp(f);
    auto h = parse_makeself_header(bytes, true);
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_EQ(h->family, MakeselfFamily::nvidia_fork);
    EXPECT_EQ(h->makeself_version, "1.6.0-nv2");
    EXPECT_EQ(h->version_string, "550.54.14");
    EXPECT_EQ(h->target_arch, "x86_64");
    EXPECT_EQ(h->script, "./nvidia-installer");
    EXPECT_EQ(h->decompress_command, "gzip -cd");
    EXPECT_EQ(bytes.substr(h->payload_offset, 2), "\x1f\x8b");  // payload *on* line skip
    ASSERT_EQ(h->payloads.size(), 1u);
    EXPECT_FALSE(h->payloads[0].size);  // to the end of the file
    EXPECT_TRUE(h->fork_crc);
    EXPECT_TRUE(h->fork_md5);
    EXPECT_EQ(h->fork_checksum_offset, bytes.find("skip="));  // after line 3
}

TEST(FormatsMakeself, OlderHeaderWithHeadDashN) {
    // makeself 2.1.x: no skip=, the count is in `head -n N "$0"`.
    std::string h =
        "#!/bin/sh\n# This script was generated using Makeself 2.1.5\n"
        "CRCsum=\"1234\"\nMD5=\"00000000000000000000000000000000\"\nlabel=\"Old\"\nfilesizes=\"4\"\n"
        "offset=`head -n 8 \"$0\" | wc -c | tr -d \" \"`\nexit 0\nDATA";
    auto r = parse_makeself_header(h, true);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->header_lines, 8u);
    EXPECT_EQ(h.substr(r->payload_offset), "DATA");
    EXPECT_EQ(r->makeself_version, "2.1.5");
    EXPECT_FALSE(r->payloads[0].md5);
    EXPECT_EQ(r->payloads[0].crc, 1234u);
}

TEST(FormatsMakeself, MultiplePayloads) {
    auto h = upstream_header("filesizes=\"10 20\"\ntotalsize=\"30\"\nMD5=\"" + std::string(32, 'a') + " " + std::string(32, 'B') +
                             "\"\nskip=\"30\"\n");
    auto r = parse_makeself_header(h, true);
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->payloads.size(), 2u);
    EXPECT_EQ(r->payloads[1].offset, r->payload_offset + 10);
    EXPECT_EQ(r->payloads[1].md5, std::string(32, 'b'));
}

TEST(FormatsMakeself, Errors) {
    auto err = [](std::string_view text, bool whole = true) {
        auto r = parse_makeself_header(text, whole);
        return r ? std::string("ok") : r.error().message;
    };
    EXPECT_EQ(err("<html>"), "not a makeself archive: the first line is not a '#!' shell line");
    EXPECT_EQ(err("#!/bin/sh\necho hi\n"), "not a makeself archive: no \"Makeself\" banner in the first 200 lines");
    EXPECT_EQ(err(upstream_header("skip=\"abc\"\n")), "makeself header is corrupt: skip=\"abc\" is not a line count");
    EXPECT_EQ(err(upstream_header("skip=\"99999999\"\n")),
              "makeself header is corrupt: the payload would start after line 99999999, an absurd header length");
    EXPECT_EQ(err(upstream_header("skip=\"500\"\n")), "the file ends inside the makeself header: 27 of its 500 lines are there");
    EXPECT_EQ(parse_makeself_header(upstream_header("skip=\"500\"\n"), false).error().code, Errc::too_large);
    EXPECT_EQ(err(upstream_header("filesizes=\"10\"\ntotalsize=\"11\"\nskip=\"25\"\n")),
              "makeself header is corrupt: totalsize=11 but filesizes add up to 10");
    EXPECT_EQ(err(upstream_header("MD5=\"abc\"\nskip=\"25\"\n")), "makeself header is corrupt: MD5 \"abc\" is not 32 hex digits");
    EXPECT_EQ(err(upstream_header("CRCsum=\"99999999999\"\nskip=\"25\"\n")),
              "makeself header is corrupt: CRCsum \"99999999999\" is not a 32-bit number");
    EXPECT_EQ(err("#!/bin/sh\n# Makeself version 2.4.5\nfoo=1\n"),
              "makeself header is corrupt: no skip=, head -n or final 'exit $res' line says where the payload starts");
}

TEST(FormatsMakeself, CksumMatchesThePosixTool) {
    EXPECT_EQ(formats::cksum_finish(formats::cksum_update(0, "123456789"), 9), 930766865u);  // cksum's check value
    EXPECT_EQ(formats::cksum_finish(0, 0), 4294967295u);                                     // `printf '' | cksum`
    std::string bytes;
    for (int i = 0; i < 100003; ++i) bytes += static_cast<char>((i * 31 + i / 7) & 0xff);
    TempDir t;
    const auto p = t.write("data", bytes);
    const auto out = tool({"/usr/bin/cksum", p.string()});
    // Split in odd pieces: the running value must not depend on chunk boundaries.
    std::uint32_t crc = formats::cksum_update(0, std::string_view(bytes).substr(0, 13));
    crc = formats::cksum_update(crc, std::string_view(bytes).substr(13));
    EXPECT_EQ(std::to_string(formats::cksum_finish(crc, bytes.size())), out.substr(0, out.find(' ')));
}

}  // namespace cudoctor::test
