// verify_installer on real archives made here (Debian's makeself, tar + xz, dpkg-deb, NVIDIA's
// fork layout), intact and then damaged in each real way: every damage has its own verdict.
#include <gtest/gtest.h>

#include "installer/verify.hpp"
#include "unit/installer_archives.hpp"

namespace cudoctor::test {
namespace {

using installer::CheckStatus;
using installer::Verdict;

installer::VerifyReport verify(const std::filesystem::path& p, std::optional<std::string> sha256 = {}, std::optional<std::string> md5 = {}) {
    installer::VerifyOptions o;
    o.path = p.string();
    o.sha256 = std::move(sha256);
    o.md5 = std::move(md5);
    auto r = installer::verify_installer(o);
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
    return r ? *r : installer::VerifyReport{};
}

const installer::Check* find_check(const installer::VerifyReport& r, const std::string& name) {
    for (const auto& c : r.checks)
        if (c.name == name) return &c;
    return nullptr;
}

std::string dump(const installer::VerifyReport& r) {
    std::string s = std::string(installer::to_string(r.verdict)) + ": " + r.summary + "\n";
    for (const auto& c : r.checks) s += "  " + std::string(installer::to_string(c.status)) + " " + c.name + ": " + c.message + "\n";
    return s;
}

void expect_check(const installer::VerifyReport& r, const std::string& name, CheckStatus status, const std::string& fragment = {}) {
    const auto* c = find_check(r, name);
    ASSERT_NE(c, nullptr) << name << "\n" << dump(r);
    EXPECT_EQ(c->status, status) << name << "\n" << dump(r);
    EXPECT_NE(c->message.find(fragment), std::string::npos) << "'" << fragment << "' not in " << c->message;
}

/// Some check of this name has this status and message fragment (for repeated names).
bool any_check(const installer::VerifyReport& r, const std::string& name, CheckStatus status, const std::string& fragment) {
    for (const auto& c : r.checks)
        if (c.name == name && c.status == status && c.message.find(fragment) != std::string::npos) return true;
    return false;
}

bool fixes_mention(const installer::VerifyReport& r, const std::string& fragment) {
    for (const auto& f : r.fixes)
        if (f.find(fragment) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST(InstallerVerify, IntactGzipMakeselfIsGood) {
    TempDir t;
    const auto f = make_makeself(t, "gz.run");
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::good) << dump(r);
    expect_check(r, "size", CheckStatus::ok, "exactly as the header declares");
    expect_check(r, "md5", CheckStatus::ok, header_value(f, "MD5"));
    expect_check(r, "stream", CheckStatus::ok, "gzip stream of the payload");
    ASSERT_TRUE(r.makeself);
    EXPECT_EQ(r.makeself->makeself_version, "2.4.5");
    EXPECT_EQ(r.makeself->label, "Test Installer 1.0");
    EXPECT_EQ(r.bytes_read, std::filesystem::file_size(f));  // one pass over the whole file
}

TEST(InstallerVerify, IntactXzMakeselfWithSha256IsGood) {
    TempDir t;
    const auto f = make_makeself(t, "xz.run", {"--xz", "--sha256"});
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::good) << dump(r);
    expect_check(r, "sha256", CheckStatus::ok, header_value(f, "SHA"));
    expect_check(r, "md5", CheckStatus::ok, header_value(f, "MD5"));
    expect_check(r, "stream", CheckStatus::ok, "xz stream of the payload");
}

TEST(InstallerVerify, CrcOnlyArchiveChecksMakeselfsOwnCksum) {
    TempDir t;
    const auto f = make_makeself(t, "crc.run", {"--nomd5"});
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::good) << dump(r);
    expect_check(r, "crc", CheckStatus::ok, header_value(f, "CRCsum"));
    EXPECT_EQ(find_check(r, "md5"), nullptr);
}

TEST(InstallerVerify, UncompressedPayloadIsCheckedBySums) {
    TempDir t;
    const auto r = verify(make_makeself(t, "nocomp.run", {"--nocomp"}));
    EXPECT_EQ(r.verdict, Verdict::good) << dump(r);
    expect_check(r, "md5", CheckStatus::ok);
    EXPECT_EQ(find_check(r, "stream"), nullptr);
}

TEST(InstallerVerify, TruncatedByAFewBytes) {
    TempDir t;
    const auto f = make_makeself(t, "cut.run");
    cut_tail(f, 5);
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::truncated) << dump(r);
    expect_check(r, "size", CheckStatus::bad, "5 bytes missing");
    EXPECT_TRUE(fixes_mention(r, "wget -c")) << dump(r);
    EXPECT_TRUE(fixes_mention(r, "aria2c -c -x 8"));
    EXPECT_EQ(r.bytes_read, 0u);  // the size already proves it: no pass needed
}

TEST(InstallerVerify, TruncatedByHalf) {
    TempDir t;
    const auto f = make_makeself(t, "half.run", {"--xz"});
    const auto full = std::filesystem::file_size(f);
    std::filesystem::resize_file(f, full / 2);
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::truncated) << dump(r);
    expect_check(r, "size", CheckStatus::bad,
                 std::to_string(full - full / 2) + " bytes) missing, " + std::to_string(full / 2 * 100 / full) + "% arrived");
}

TEST(InstallerVerify, TruncatedInsideTheHeader) {
    TempDir t;
    const auto f = make_makeself(t, "tiny.run");
    std::filesystem::resize_file(f, 4000);
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::truncated) << dump(r);
    expect_check(r, "header", CheckStatus::bad, "the file ends inside the makeself header");
}

TEST(InstallerVerify, CutAtFat32LimitSparse) {
    TempDir t;
    const auto f = make_makeself(t, "cuda_12.9.1_575.57.08_linux.run", {}, "CUDA Installer");
    // The same header declaring a 4.3 GB payload, as a real CUDA runfile does; then the file
    // cut where FAT32 cuts it. Sparse: costs no disk and is never read.
    const auto size = header_value(f, "filesizes");
    edit(f, "filesizes=\"" + size + "\"", "filesizes=\"4300000000\"");
    edit(f, "totalsize=\"" + size + "\"", "totalsize=\"4300000000\"");
    std::filesystem::resize_file(f, 4294967295ull);
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::fat32_cut) << dump(r);
    expect_check(r, "fat32", CheckStatus::bad, "4294967295");
    EXPECT_TRUE(fixes_mention(r, "exFAT")) << dump(r);
    EXPECT_TRUE(fixes_mention(r,
                              "https://developer.download.nvidia.com/compute/cuda/12.9.1/local_installers/"
                              "cuda_12.9.1_575.57.08_linux.run"));
    EXPECT_EQ(r.bytes_read, 0u);
}

TEST(InstallerVerify, OneBitFlippedInGzipPayload) {
    TempDir t;
    const auto f = make_makeself(t, "flip.run");
    const auto offset = std::filesystem::file_size(f) - std::stoull(header_value(f, "totalsize"));
    flip_bit(f, offset + 2000);
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::corrupt) << dump(r);
    expect_check(r, "md5", CheckStatus::bad, "the header says " + header_value(f, "MD5"));
    EXPECT_TRUE(fixes_mention(r, "not resumed"));
}

TEST(InstallerVerify, OneBitFlippedInXzPayloadIsCaughtByTheStreamToo) {
    TempDir t;
    const auto f = make_makeself(t, "flipxz.run", {"--xz", "--sha256"});
    const auto offset = std::filesystem::file_size(f) - std::stoull(header_value(f, "totalsize"));
    flip_bit(f, offset + 3000);
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::corrupt) << dump(r);
    expect_check(r, "sha256", CheckStatus::bad);
    expect_check(r, "stream", CheckStatus::bad, "xz:");
}

TEST(InstallerVerify, HtmlErrorPageUnderTheRunfileName) {
    TempDir t;
    const auto f = t.write("cuda_12.4.0_550.54.14_linux.run",
                           "<!DOCTYPE html>\n<html><head><title>403 Forbidden</title></head><body>denied</body></html>\n");
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::error_page) << dump(r);
    expect_check(r, "kind", CheckStatus::bad, "an HTML page: \"403 Forbidden\"");
    EXPECT_EQ(r.name.cuda, "12.4.0");
    EXPECT_EQ(r.name.driver, "550.54.14");
}

TEST(InstallerVerify, S3XmlErrorAndJsonError) {
    TempDir t;
    auto r = verify(t.write("a.run",
                            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code>"
                            "<Message>Access Denied</Message></Error>"));
    EXPECT_EQ(r.verdict, Verdict::error_page) << dump(r);
    expect_check(r, "kind", CheckStatus::bad, "AccessDenied: Access Denied");
    r = verify(t.write("b.tar.xz", "{\"error\": \"token expired\"}"));
    EXPECT_EQ(r.verdict, Verdict::error_page) << dump(r);
    expect_check(r, "kind", CheckStatus::bad, "a JSON document: \"token expired\"");
}

TEST(InstallerVerify, EmptyFile) {
    TempDir t;
    const auto r = verify(t.write("e.run", ""));
    EXPECT_EQ(r.verdict, Verdict::empty) << dump(r);
    EXPECT_NE(r.summary.find("0 bytes"), std::string::npos);
}

TEST(InstallerVerify, HeaderWithAbsurdSizes) {
    TempDir t;
    const auto f = make_makeself(t, "absurd.run");
    const auto size = header_value(f, "filesizes");
    edit(f, "filesizes=\"" + size + "\"", "filesizes=\"99999999999999999999\"");
    auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::header_corrupt) << dump(r);
    expect_check(r, "header", CheckStatus::bad, "\"99999999999999999999\" is not a plausible size");

    const auto g = make_makeself(t, "absurd2.run", {}, "x", "payload2");
    const auto size2 = header_value(g, "filesizes");
    edit(g, "filesizes=\"" + size2 + "\"", "filesizes=\"900000000000000\"");  // 818 TiB
    edit(g, "totalsize=\"" + size2 + "\"", "totalsize=\"900000000000000\"");
    r = verify(g);
    EXPECT_EQ(r.verdict, Verdict::header_corrupt) << dump(r);
    expect_check(r, "size", CheckStatus::bad, "more than any installer");
}

TEST(InstallerVerify, BytesAppendedAfterTheArchive) {
    TempDir t;
    const auto f = make_makeself(t, "long.run");
    const auto size = std::filesystem::file_size(f);
    spill(f, slurp(f) + "extra");
    const auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::too_long) << dump(r);
    expect_check(r, "size", CheckStatus::bad, "5 bytes too many");
    EXPECT_TRUE(fixes_mention(r, "truncate -s " + std::to_string(size)));
}

TEST(InstallerVerify, UserSha256AndMd5) {
    TempDir t;
    const auto f = make_makeself(t, "u.run");
    const auto sha = tool({"/usr/bin/sha256sum", f.string()}).substr(0, 64);
    const auto md5 = tool({"/usr/bin/md5sum", f.string()}).substr(0, 32);
    auto r = verify(f, sha);
    EXPECT_EQ(r.verdict, Verdict::good) << dump(r);
    expect_check(r, "user-sha256", CheckStatus::ok, sha);
    r = verify(f, {}, md5);
    expect_check(r, "user-md5", CheckStatus::ok, md5);
    std::string wrong = sha;
    wrong[0] = wrong[0] == '0' ? '1' : '0';
    r = verify(f, wrong);
    EXPECT_EQ(r.verdict, Verdict::digest_mismatch) << dump(r);
    expect_check(r, "user-sha256", CheckStatus::bad, "expected " + wrong);

    installer::VerifyOptions o;
    o.path = f.string();
    o.sha256 = "abc";
    auto bad = installer::verify_installer(o);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, Errc::usage);
    EXPECT_EQ(bad.error().message, "--sha256 wants 64 hex digits, got \"abc\"");
}

TEST(InstallerVerify, MissingFileAndFolderAreUsageErrors) {
    TempDir t;
    installer::VerifyOptions o;
    o.path = (t.path() / "nope.run").string();
    auto r = installer::verify_installer(o);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::not_found);
    o.path = t.str();
    r = installer::verify_installer(o);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message, t.str() + " is not a regular file");
}

TEST(InstallerVerify, CudnnTarXzGoodTruncatedAndFlipped) {
    TempDir t;
    const auto f = make_tar_xz(t, "cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz");
    auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::good) << dump(r);
    expect_check(r, "stream", CheckStatus::ok, "xz stream of the file");
    EXPECT_EQ(r.name.cudnn, "9.3.0.75");
    EXPECT_EQ(r.name.cuda, "12");

    const auto size = std::filesystem::file_size(f);
    flip_bit(f, size / 2);
    r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::corrupt) << dump(r);
    flip_bit(f, size / 2);  // back to intact
    cut_tail(f, 100);
    r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::truncated) << dump(r);
    expect_check(r, "size", CheckStatus::bad, "no xz stream footer");
}

TEST(InstallerVerify, DebGoodAndTruncated) {
    TempDir t;
    const auto f = make_deb(t, "cuda-repo-ubuntu2204-12-4-local_12.4.0-550.54.14-1_amd64.deb");
    auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::good) << dump(r);
    EXPECT_EQ(r.kind, formats::FileKind::deb);
    expect_check(r, "size", CheckStatus::ok, "3 ar members");
    EXPECT_TRUE(any_check(r, "stream", CheckStatus::ok, "xz stream of data.tar.xz")) << dump(r);
    EXPECT_TRUE(any_check(r, "stream", CheckStatus::ok, "xz stream of control.tar.xz")) << dump(r);
    EXPECT_EQ(r.name.cuda, "12.4.0");
    EXPECT_EQ(r.name.driver, "550.54.14");
    cut_tail(f, 1000);
    r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::truncated) << dump(r);
    expect_check(r, "size", CheckStatus::bad, "member \"data.tar.xz\" declares");
}

TEST(InstallerVerify, NvidiaForkLayoutGoodAndTruncated) {
    TempDir t;
    const auto f = make_nvidia_fork(t, "NVIDIA-Linux-x86_64-550.54.14.run");
    auto r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::good) << dump(r);
    ASSERT_TRUE(r.makeself);
    EXPECT_EQ(r.makeself->family, formats::MakeselfFamily::nvidia_fork);
    expect_check(r, "crc", CheckStatus::ok);
    expect_check(r, "md5", CheckStatus::ok);
    expect_check(r, "stream", CheckStatus::ok);
    EXPECT_EQ(r.name.driver, "550.54.14");

    cut_tail(f, 300);  // the fork records no size: only the stream and the sums can tell
    r = verify(f);
    EXPECT_EQ(r.verdict, Verdict::truncated) << dump(r);
    expect_check(r, "stream", CheckStatus::bad, "ends before its end marker");
    EXPECT_TRUE(fixes_mention(r, "https://download.nvidia.com/XFree86/Linux-x86_64/550.54.14/NVIDIA-Linux-x86_64-550.54.14.run"));
}

TEST(InstallerVerify, FatFilesystemOverrideIsNamed) {
    TempDir t;
    const auto f = make_makeself(t, "fat.run");
    installer::VerifyOptions o;
    o.path = f.string();
    o.fs_type_override = "vfat";
    auto r = installer::verify_installer(o);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->verdict, Verdict::good);
    expect_check(*r, "fat32", CheckStatus::warning, "FAT cuts files at 4 GiB − 1 bytes");
    expect_check(*r, "space", CheckStatus::info, "CUDOCTOR_OVERRIDE_FS_TYPE");
}

}  // namespace cudoctor::test
