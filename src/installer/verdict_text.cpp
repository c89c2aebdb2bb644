#include "installer/verdict_text.hpp"

#include <algorithm>

#include "common/text.hpp"
#include "host/host.hpp"
#include "installer/disk.hpp"

namespace cudoctor::installer {
namespace {

// Below this much free space a cut or empty download is most likely a full disk.
constexpr std::uint64_t kNearlyFull = 64u << 20;

}  // namespace

void explain_verdict(VerifyReport& r, std::optional<std::uint64_t> free_where_it_sits) {
    const auto file = text::shell_quote(r.path);
    auto url = official_url(r.path, r.name);
    const bool known_url = !url.empty();
    if (!known_url) url = "URL";
    const bool disk_full = free_where_it_sits && *free_where_it_sits < kNearlyFull;
    const std::string free_first =
        "free space where it sits first (only " + human_bytes(free_where_it_sits.value_or(0)) + " left): df -h " + file;
    const std::string fresh = "rm " + file + " && wget -O " + file + " " + url;
    std::vector<std::string> fixes;
    switch (r.verdict) {
        case Verdict::good:
            r.summary = "good: the file is whole and its own checks pass";
            for (const auto& c : r.checks)
                if (c.name.starts_with("user-") && c.status == CheckStatus::ok) r.summary += ", and it matches the checksum given";
                else if (c.name.starts_with("published-") && c.status == CheckStatus::ok)
                    r.summary += "; genuine: it matches the published " + std::string(c.name == "published-md5" ? "MD5" : "SHA-256") +
                                 " of " + host::basename(r.path);
            break;
        case Verdict::empty:
            r.summary =
                "empty: the file has 0 bytes; the download never wrote anything" + std::string(disk_full ? " (the disk is full)" : "");
            if (disk_full) fixes.push_back(free_first);
            fixes.push_back(fresh);
            break;
        case Verdict::error_page:
            r.summary = "not the installer: the server sent " + r.kind_text +
                        " instead (an error, login or redirect page saved under the installer's name)";
            fixes.push_back("look at it: head -c 2000 " + file);
            fixes.push_back("download again from the direct link (a browser session or an expired link gives a page, not the file): " + fresh);
            break;
        case Verdict::not_an_installer:
            r.summary = "not an installer: this is " + r.kind_text;
            fixes.emplace_back("check that this is the file you meant to download");
            break;
        case Verdict::header_corrupt:
            r.summary = "damaged: the makeself header itself holds impossible values";
            fixes.push_back("download it again from scratch (resuming keeps the damaged start): " + fresh);
            break;
        case Verdict::truncated:
            r.summary =
                "cut short: the download stopped before the end" + std::string(disk_full ? ", most likely because the disk filled up" : "");
            if (disk_full) fixes.push_back(free_first);
            fixes.push_back("resume it (the bytes so far are good): wget -c -O " + file + " " + url);
            fixes.push_back("or faster, resuming too: aria2c -c -x 8 -o " + file + " " + url);
            break;
        case Verdict::fat32_cut:
            r.summary = "cut at 4 GiB − 1 bytes: a FAT32 filesystem (a USB stick) cannot hold a file this large";
            fixes.push_back(
                "copy it again from the original onto exFAT, NTFS or ext4 (format a stick as exFAT: mkfs.exfat /dev/sdX1, which erases it), or download it directly on this machine: wget -c -O " +
                file + " " + url);
            break;
        case Verdict::too_long:
            r.summary =
                "too long: bytes follow the archive's declared end (a resumed download appended to a complete file, or two downloads joined)";
            for (const auto& c : r.checks)
                if (c.name == "size" && r.makeself && r.makeself->payloads.back().size)
                    fixes.push_back("cut it to its declared size, then verify again: truncate -s " +
                                    std::to_string(r.makeself->payloads.back().offset + *r.makeself->payloads.back().size) + " " + file);
            fixes.push_back("or download it again: " + fresh);
            break;
        case Verdict::corrupt:
            r.summary = "corrupt: the archive's own checksums or compressed stream disagree with its bytes (damaged in transit or on disk)";
            fixes.push_back("download it again from scratch, not resumed (resuming keeps the damage): " + fresh);
            fixes.emplace_back("if it happens twice, suspect the disk or memory of this machine: dmesg | grep -i error");
            break;
        case Verdict::digest_mismatch:
            r.summary =
                "not the file you expected: it is whole and self-consistent, but its checksum is not the one " +
                std::string(std::any_of(r.checks.begin(), r.checks.end(), [](const Check& c) { return c.name.starts_with("published-"); })
                                ? "published for a file of this name"
                                : "given") +
                " (another version or build, or a modified copy)";
            fixes.push_back("compare the file name and version with where the checksum came from; download from NVIDIA directly" +
                            std::string(known_url ? ": " + url : ""));
            break;
        case Verdict::unreadable:
            r.summary = "unreadable: reading the file failed part way";
            fixes.emplace_back("copy it to a local disk and verify the copy; check the device: dmesg | tail");
            break;
    }
    // Space fixes already added by the checks come after the verdict's own.
    fixes.insert(fixes.end(), r.fixes.begin(), r.fixes.end());
    r.fixes = std::move(fixes);
}

}  // namespace cudoctor::installer
