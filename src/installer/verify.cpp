#include "installer/verify.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "common/text.hpp"
#include "host/host.hpp"
#include "installer/disk.hpp"
#include "installer/schedule.hpp"
#include "installer/verdict_text.hpp"

namespace cudoctor::installer {

using formats::FileKind;
using formats::PayloadCompression;

const char* to_string(Verdict v) {
    switch (v) {
        case Verdict::good: return "good";
        case Verdict::empty: return "empty";
        case Verdict::error_page: return "error-page";
        case Verdict::not_an_installer: return "not-an-installer";
        case Verdict::header_corrupt: return "header-corrupt";
        case Verdict::truncated: return "truncated";
        case Verdict::fat32_cut: return "fat32-cut";
        case Verdict::too_long: return "too-long";
        case Verdict::corrupt: return "corrupt";
        case Verdict::digest_mismatch: return "digest-mismatch";
        case Verdict::unreadable: break;
    }
    return "unreadable";
}

const char* to_string(CheckStatus s) {
    switch (s) {
        case CheckStatus::ok: return "ok";
        case CheckStatus::bad: return "bad";
        case CheckStatus::warning: return "warning";
        case CheckStatus::skipped: return "skipped";
        case CheckStatus::info: break;
    }
    return "info";
}

namespace {

// No installer is near this; a header declaring more is damaged, not a big download.
constexpr std::uint64_t kPlausibleInstaller = 1ull << 40;

class Fd {
  public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd() {
        if (m_fd >= 0) ::close(m_fd);
    }
    int get() const { return m_fd; }

  private:
    int m_fd;
};

std::string read_at(int fd, std::uint64_t offset, std::size_t n) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        const auto r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(offset + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += static_cast<std::size_t>(r);
    }
    out.resize(got);
    return out;
}

std::string folder_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

/// "5 bytes", or "2.0 MiB (2097152 bytes)" where the exact count adds something.
std::string amount(std::uint64_t n) { return n < 1024 ? human_bytes(n) : human_bytes(n) + " (" + std::to_string(n) + " bytes)"; }

/// The verifier's state for one file.
class Verifier {
  public:
    Verifier(const VerifyOptions& options, int fd, VerifyReport& report) : m_options(options), m_fd(fd), m_r(report) {}

    void run(const ProgressFn& progress);

  private:
    void add(std::string name, CheckStatus status, std::string message) {
        m_r.checks.push_back({std::move(name), status, std::move(message)});
    }
    /// The first bad verdict wins: checks run from the cheapest and most specific.
    void judge(Verdict v) {
        if (m_r.verdict == Verdict::good) m_r.verdict = v;
    }
    bool bad() const { return m_r.verdict != Verdict::good; }

    void check_space_where_it_sits();
    void plan_makeself();
    void plan_ar();
    void plan_stream_file(PayloadCompression c);
    void check_fat32_cut();
    void check_fat_filesystem();
    void check_unpack_space(std::optional<std::uint64_t> need);
    void plan_user_digests();
    void run_pass(const ProgressFn& progress);
    void judge_pass();

    const VerifyOptions& m_options;
    int m_fd;
    VerifyReport& m_r;
    std::string m_head;
    Schedule m_schedule;
    std::optional<DiskInfo> m_sits;
    bool m_size_proven = false;  ///< the size matches a declared size exactly
    unsigned threads() const { return m_options.threads ? m_options.threads : std::max(1u, std::thread::hardware_concurrency()); }
};

void Verifier::check_space_where_it_sits() {
    auto d = disk_info(folder_of(m_r.path));
    if (!d) {
        add("space", CheckStatus::skipped, d.error().message);
        return;
    }
    if (m_options.fs_type_override) {
        d->fs_type = *m_options.fs_type_override + " (CUDOCTOR_OVERRIDE_FS_TYPE)";
        d->fat = *m_options.fs_type_override == "vfat" || *m_options.fs_type_override == "msdos";
    }
    m_sits = *d;
    add("space", CheckStatus::info, human_bytes(d->free_bytes) + " free on " + d->fs_type + " where it sits (" + d->path + ")");
}

void Verifier::plan_makeself() {
    auto header = formats::parse_makeself_header(m_head, m_r.size <= m_head.size());
    if (!header) {
        const auto& e = header.error();
        add("header", CheckStatus::bad, e.message);
        judge(e.code == Errc::truncated ? Verdict::truncated : Verdict::header_corrupt);
        return;
    }
    const auto& h = *header;
    m_r.makeself = h;
    // A label is one line of the header, written by whoever built the file: a long one is cut to
    // a line, with its length, so a 100 kB label cannot flood the report.
    constexpr std::size_t kLabelShown = 120;
    const std::string label = h.label.size() <= kLabelShown ? "\"" + h.label + "\""
                                                            : "\"" + text::printable(h.label, kLabelShown) + "\" (a " +
                                                                  std::to_string(h.label.size()) + "-byte label)";
    m_r.kind_text = std::string(describe(FileKind::makeself)) + ": " + label + ", makeself " +
                    (h.makeself_version.empty() ? "(version not named)" : h.makeself_version) +
                    (h.family == formats::MakeselfFamily::nvidia_fork ? " (NVIDIA's fork)" : "") + ", " +
                    formats::to_string(h.compression) + " payload";
    m_r.name = read_installer_name(m_r.path, h.label, h.version_string);
    add("header", CheckStatus::ok,
        "payload starts at byte " + std::to_string(h.payload_offset) + " (after line " + std::to_string(h.header_lines) + ")");

    // Size against what the header declares.
    const auto& last = h.payloads.back();
    if (last.size) {
        const std::uint64_t declared = last.offset + *last.size;
        if (declared - h.payload_offset > kPlausibleInstaller) {
            add("size", CheckStatus::bad,
                "the header declares " + human_bytes(declared - h.payload_offset) +
                    " of payload, more than any installer: the header is damaged");
            judge(Verdict::header_corrupt);
            return;
        }
        if (m_r.size < declared) {
            const auto missing = declared - m_r.size;
            add("size", CheckStatus::bad,
                std::to_string(m_r.size) + " bytes, the header declares " + std::to_string(declared) + ": " + amount(missing) +
                    " missing, " + std::to_string(m_r.size * 100 / declared) + "% arrived");
            judge(Verdict::truncated);
        } else if (m_r.size > declared) {
            add("size", CheckStatus::bad,
                std::to_string(m_r.size) + " bytes, the header declares " + std::to_string(declared) + ": " +
                    std::to_string(m_r.size - declared) + " bytes too many after the archive's end");
            judge(Verdict::too_long);
        } else {
            m_size_proven = true;
            add("size", CheckStatus::ok, std::to_string(m_r.size) + " bytes, exactly as the header declares");
        }
    } else {
        add("size", CheckStatus::info,
            "the header declares no size (" + std::string(formats::to_string(h.family)) +
                " makeself): the stream check below finds a cut file");
    }
    if (bad()) return;

    // The payload's first bytes must be what the header's decompressor expects.
    const auto magic = read_at(m_fd, h.payload_offset, 512);
    const auto found = formats::detect_file_kind(magic);
    const FileKind want = h.compression == PayloadCompression::gzip    ? FileKind::gzip
                          : h.compression == PayloadCompression::xz    ? FileKind::xz
                          : h.compression == PayloadCompression::zstd  ? FileKind::zstd
                          : h.compression == PayloadCompression::bzip2 ? FileKind::bzip2
                                                                       : FileKind::binary;
    if (want != FileKind::binary && found != want) {
        add("payload", CheckStatus::bad,
            std::string("the header announces a ") + formats::to_string(h.compression) + " payload at byte " +
                std::to_string(h.payload_offset) + " but it starts as " + describe(found));
        judge(magic.empty() ? Verdict::truncated : Verdict::corrupt);
        return;
    }

    // The sums makeself itself checks (formats.md 2.4), and the stream.
    if (h.family == formats::MakeselfFamily::nvidia_fork) {
        const auto from = h.fork_checksum_offset.value_or(0);
        const std::string what = "bytes from line 4 to the end";
        if (h.fork_crc)
            m_schedule.digests.push_back(
                {"crc", what, std::to_string(*h.fork_crc), std::make_unique<DigestSink>(DigestKind::cksum, from, std::nullopt)});
        if (h.fork_md5)
            m_schedule.digests.push_back({"md5", what, *h.fork_md5, std::make_unique<DigestSink>(DigestKind::md5, from, std::nullopt)});
    }
    for (std::size_t i = 0; i < h.payloads.size(); ++i) {
        const auto& p = h.payloads[i];
        const std::string what = h.payloads.size() == 1 ? "the payload" : "payload " + std::to_string(i + 1);
        const auto end = p.size ? std::optional<std::uint64_t>(p.offset + *p.size) : std::nullopt;
        if (h.family == formats::MakeselfFamily::upstream) {
            if (p.sha256)
                m_schedule.digests.push_back({"sha256", what, *p.sha256, std::make_unique<DigestSink>(DigestKind::sha256, p.offset, end)});
            if (p.md5) m_schedule.digests.push_back({"md5", what, *p.md5, std::make_unique<DigestSink>(DigestKind::md5, p.offset, end)});
            // makeself checks the CRC only when no MD5 or SHA-256 was checked.
            if (p.crc && !p.md5 && !p.sha256)
                m_schedule.digests.push_back(
                    {"crc", what, std::to_string(*p.crc), std::make_unique<DigestSink>(DigestKind::cksum, p.offset, end)});
            if (!p.sha256 && !p.md5 && !p.crc) m_schedule.notes.push_back("the header records no MD5, SHA-256 or CRC of " + what);
        }
        if (h.compression == PayloadCompression::gzip || h.compression == PayloadCompression::xz || h.compression == PayloadCompression::zstd)
            m_schedule.streams.push_back({what, std::make_unique<StreamCheckSink>(h.compression, p.offset, end, threads())});
        else if (h.compression != PayloadCompression::none)
            m_schedule.notes.push_back(std::string("the ") + formats::to_string(h.compression) + " stream of " + what +
                                       " is not decompressed (no decoder linked)");
    }
}

void Verifier::plan_ar() {
    std::uint64_t pos = formats::kArMagic.size();
    int members = 0;
    while (pos < m_r.size) {
        if (m_r.size - pos < formats::kArMemberHeaderSize) {
            add("size", CheckStatus::bad, "the file ends inside an ar member header at byte " + std::to_string(pos));
            judge(Verdict::truncated);
            return;
        }
        auto m = formats::parse_ar_member_header(read_at(m_fd, pos, formats::kArMemberHeaderSize));
        if (!m) {
            add("members", CheckStatus::bad, "at byte " + std::to_string(pos) + ": " + m.error().message);
            judge(Verdict::corrupt);
            return;
        }
        const auto data = pos + formats::kArMemberHeaderSize;
        if (m->size > kPlausibleInstaller) {
            add("members", CheckStatus::bad, "member \"" + m->name + "\" declares " + human_bytes(m->size));
            judge(Verdict::header_corrupt);
            return;
        }
        if (data + m->size > m_r.size) {
            const auto missing = data + m->size - m_r.size;
            add("size", CheckStatus::bad,
                "member \"" + m->name + "\" declares " + std::to_string(m->size) + " bytes; the file ends " + amount(missing) +
                    " short of it");
            judge(Verdict::truncated);
            return;
        }
        ++members;
        const auto& n = m->name;
        PayloadCompression c = PayloadCompression::other;
        if (n.ends_with(".xz")) c = PayloadCompression::xz;
        else if (n.ends_with(".gz")) c = PayloadCompression::gzip;
        else if (n.ends_with(".zst")) c = PayloadCompression::zstd;
        if (c != PayloadCompression::other)
            m_schedule.streams.push_back({n, std::make_unique<StreamCheckSink>(c, data, data + m->size, threads())});
        pos = data + m->size + (m->size & 1);
    }
    if (pos > m_r.size + 1) {
        judge(Verdict::truncated);
        return;
    }
    m_size_proven = true;
    add("size", CheckStatus::ok, std::to_string(members) + " ar members, all within the file's " + std::to_string(m_r.size) + " bytes");
}

void Verifier::plan_stream_file(PayloadCompression c) {
    if (c == PayloadCompression::xz) {
        // An xz file ends with a 12-byte stream footer whose last two bytes are "YZ"
        // (stream padding, zero bytes in fours, may follow): a cut file almost never does.
        std::uint64_t end = m_r.size;
        while (end >= 4 && end > m_r.size - 1024 && read_at(m_fd, end - 4, 4) == std::string(4, '\0')) end -= 4;
        if (end < 12 || read_at(m_fd, end - 2, 2) != "YZ") {
            add("size", CheckStatus::bad, "no xz stream footer at the end of the file: it was cut short");
            judge(Verdict::truncated);
            return;
        }
        add("size", CheckStatus::ok, "the xz stream footer is in place at the end");
    } else {
        add("size", CheckStatus::info,
            std::string("a ") + formats::to_string(c) + " stream declares no size up front: the stream check finds a cut file");
    }
    m_schedule.streams.push_back({"the file", std::make_unique<StreamCheckSink>(c, 0, std::nullopt, threads())});
}

void Verifier::check_fat32_cut() {
    if (m_r.size != kFat32MaxFile || m_size_proven) return;
    const bool on_fat = m_sits && m_sits->fat;
    add("fat32", CheckStatus::bad,
        "exactly 4 GiB − 1 bytes (4294967295): the largest file FAT32 can hold" +
            std::string(on_fat ? ", and it sits on a FAT filesystem" : ""));
    m_r.verdict = Verdict::fat32_cut;  // more specific than "truncated"
}

void Verifier::check_fat_filesystem() {
    if (!m_sits || !m_sits->fat || m_r.verdict == Verdict::fat32_cut) return;
    if (m_r.verdict == Verdict::truncated) {
        // A copy that stopped near the limit is FAT's doing; a small cut file is just cut.
        const bool near_limit = m_r.size > kFat32MaxFile - (64u << 20);
        add("fat32", near_limit ? CheckStatus::bad : CheckStatus::warning,
            "it sits on a FAT filesystem, which cannot hold files of 4 GiB or more");
        if (near_limit) m_r.verdict = Verdict::fat32_cut;
    } else {
        add("fat32", CheckStatus::warning, "it sits on a FAT filesystem: fine for this file, but FAT cuts files at 4 GiB − 1 bytes");
    }
}

void Verifier::check_unpack_space(std::optional<std::uint64_t> need) {
    auto d = disk_info(m_options.unpack_dir);
    if (!d) {
        add("unpack-space", CheckStatus::skipped, d.error().message);
        return;
    }
    std::string msg = human_bytes(d->free_bytes) + " free in " + d->path + " where it unpacks";
    if (need && d->free_bytes < *need) {
        add("unpack-space", CheckStatus::warning, msg + ", it needs " + human_bytes(*need));
        m_r.fixes.push_back("free " + human_bytes(*need - d->free_bytes) + " in " + d->path +
                            " or unpack elsewhere: TMPDIR=/path/with/space sh " + m_r.path + " --tmpdir=/path/with/space");
    } else {
        add("unpack-space", CheckStatus::info, need ? msg + ", it needs " + human_bytes(*need) : msg);
    }
}

void Verifier::plan_user_digests() {
    if (m_options.sha256)
        m_schedule.digests.push_back(
            {"user-sha256", "the file", *m_options.sha256, std::make_unique<DigestSink>(DigestKind::sha256, 0, std::nullopt)});
    if (m_options.md5)
        m_schedule.digests.push_back({"user-md5", "the file", *m_options.md5, std::make_unique<DigestSink>(DigestKind::md5, 0, std::nullopt)});
    // The published checksum of a file of this name, unless the user gave one (theirs is the one
    // they trust; one pass need not hash the file twice).
    if (m_options.known && !m_options.sha256 && !m_options.md5) {
        const auto& k = *m_options.known;
        if (!k.sha256.empty())
            m_schedule.digests.push_back(
                {"published-sha256", "the file", k.sha256, std::make_unique<DigestSink>(DigestKind::sha256, 0, std::nullopt)});
        else if (!k.md5.empty())
            m_schedule.digests.push_back({"published-md5", "the file", k.md5, std::make_unique<DigestSink>(DigestKind::md5, 0, std::nullopt)});
    }
}

void Verifier::run_pass(const ProgressFn& progress) {
    const auto result = run_single_pass(m_fd, m_r.size, m_schedule.sinks(), progress);
    m_r.bytes_read = result.bytes_read;
    m_r.pass_seconds = result.seconds;
    if (result.error) {
        add("read", CheckStatus::bad, result.error->message);
        judge(Verdict::unreadable);
    } else if (result.bytes_read != m_r.size) {
        add("read", CheckStatus::bad,
            "the file changed size while it was read (" + std::to_string(result.bytes_read) + " of " + std::to_string(m_r.size) + " bytes)");
        judge(Verdict::unreadable);
    }
}

void Verifier::judge_pass() {
    for (const auto& s : m_schedule.streams) {
        const auto& res = s.sink->result();
        const std::string name = std::string(formats::to_string(s.sink->compression())) + " stream of " + s.what;
        switch (res.status) {
            case StreamStatus::ok:
                add("stream", CheckStatus::ok, name + ": decompresses to its end and trailer (" + human_bytes(res.uncompressed) + ")");
                break;
            case StreamStatus::ended_early:
                add("stream", CheckStatus::bad, name + ": " + res.detail);
                judge(Verdict::truncated);
                break;
            case StreamStatus::corrupt: add("stream", CheckStatus::bad, name + ": " + res.detail); break;
            case StreamStatus::trailing: add("stream", CheckStatus::warning, name + ": " + res.detail); break;
            case StreamStatus::unchecked: add("stream", CheckStatus::skipped, name + ": " + res.detail); break;
        }
    }
    bool own_mismatch = false;
    const auto outside = [](const std::string& check) { return check.starts_with("user-") || check.starts_with("published-"); };
    for (const auto& d : m_schedule.digests) {
        const bool user = d.check.starts_with("user-");
        const bool published = d.check.starts_with("published-");
        const auto& got = d.sink->value();
        std::string expected = d.expected;
        for (auto& ch : expected) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        const std::string label = std::string(to_string(d.sink->kind())) + " of " + d.what;
        const std::string whose = user        ? "the one given"
                                  : published ? "the one published for " + host::basename(m_r.path) + " (" + m_options.known->source + ")"
                                              : "the header";
        if (got == expected) {
            add(d.check, CheckStatus::ok, label + " matches " + whose + " (" + got + ")");
        } else {
            add(d.check, CheckStatus::bad,
                label + " is " + got + ", " +
                    (user        ? "expected "
                     : published ? whose + " is "
                                 : "the header says ") +
                    expected);
            if (!user && !published) own_mismatch = true;
        }
    }
    for (const auto& s : m_schedule.streams)
        if (s.sink->result().status == StreamStatus::corrupt) own_mismatch = true;
    if (own_mismatch) judge(Verdict::corrupt);
    for (const auto& d : m_schedule.digests) {
        std::string expected = d.expected;
        for (auto& ch : expected) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (outside(d.check) && d.sink->value() != expected) judge(Verdict::digest_mismatch);
    }
}

void Verifier::run(const ProgressFn& progress) {
    m_head = read_at(m_fd, 0, std::min<std::uint64_t>(m_r.size, formats::kMakeselfHeaderCap));
    m_r.kind = formats::detect_file_kind(m_head);
    m_r.kind_text = describe(m_r.kind);
    m_r.name = read_installer_name(m_r.path);
    const bool supported = m_r.kind == FileKind::makeself || m_r.kind == FileKind::deb || m_r.kind == FileKind::ar ||
                           m_r.kind == FileKind::xz || m_r.kind == FileKind::gzip || m_r.kind == FileKind::zstd ||
                           m_r.kind == FileKind::tar || m_r.kind == FileKind::bzip2;
    if (supported) add("kind", CheckStatus::ok, m_r.kind_text);
    check_space_where_it_sits();
    switch (m_r.kind) {
        case FileKind::empty:
            add("kind", CheckStatus::bad, "the file is empty (0 bytes)");
            judge(Verdict::empty);
            break;
        case FileKind::html:
        case FileKind::xml:
        case FileKind::json:
        case FileKind::text: {
            const auto excerpt = formats::text_excerpt(m_head);
            if (!excerpt.empty()) m_r.kind_text += ": \"" + excerpt + "\"";
            add("kind", CheckStatus::bad, m_r.kind_text + " (" + std::to_string(m_r.size) + " bytes), not an installer");
            judge(Verdict::error_page);
            break;
        }
        case FileKind::makeself: plan_makeself(); break;
        case FileKind::deb:
        case FileKind::ar: plan_ar(); break;
        case FileKind::xz: plan_stream_file(PayloadCompression::xz); break;
        case FileKind::gzip: plan_stream_file(PayloadCompression::gzip); break;
        case FileKind::zstd: plan_stream_file(PayloadCompression::zstd); break;
        case FileKind::tar:
        case FileKind::bzip2:
            m_schedule.notes.push_back(std::string(describe(m_r.kind)) + " carries no integrity data cudoctor can check");
            break;
        default:
            add("kind", CheckStatus::bad, m_r.kind_text + ", not an installer");
            judge(Verdict::not_an_installer);
            break;
    }
    if (m_r.makeself) m_r.checks.front().message = m_r.kind_text;
    if (m_r.kind != FileKind::empty) check_fat32_cut();
    std::optional<std::uint64_t> need;
    if (m_r.makeself && m_r.makeself->uncompressed_kib) need = *m_r.makeself->uncompressed_kib * 1024;
    if (!bad()) check_unpack_space(need);
    for (const auto& n : m_schedule.notes) add("note", CheckStatus::info, n);
    if (bad()) {
        if (m_options.sha256 || m_options.md5)
            add("user-digest", CheckStatus::skipped, "not computed: the file is already known to be bad");
    } else {
        plan_user_digests();
        if (m_schedule.digests.empty() && m_schedule.streams.empty())
            add("integrity", CheckStatus::warning, "nothing to check the bytes against: give --sha256 HEX from the download page");
        else {
            run_pass(progress);
            judge_pass();
        }
    }
    if (m_r.kind != FileKind::empty) check_fat_filesystem();
    explain_verdict(m_r, m_sits ? std::optional<std::uint64_t>(m_sits->free_bytes) : std::nullopt);
}

}  // namespace

Expected<VerifyReport> verify_installer(const VerifyOptions& options, const ProgressFn& progress) {
    if (options.sha256 && !is_hex_digest(*options.sha256, DigestKind::sha256))
        return fail(Errc::usage, "--sha256 wants 64 hex digits, got \"" + *options.sha256 + "\"");
    if (options.md5 && !is_hex_digest(*options.md5, DigestKind::md5))
        return fail(Errc::usage, "--md5 wants 32 hex digits, got \"" + *options.md5 + "\"");
    const int raw = ::open(options.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (raw < 0) {
        const int e = errno;
        return fail(e == ENOENT ? Errc::not_found : Errc::io, "cannot open " + options.path + ": " + std::strerror(e));
    }
    Fd fd(raw);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return fail(Errc::io, options.path + " is not a regular file");
    ::fcntl(fd.get(), F_SETFL, 0);  // O_NONBLOCK only kept a FIFO from hanging the open
    VerifyReport report;
    report.path = options.path;
    report.size = static_cast<std::uint64_t>(st.st_size);
    auto lowered = options;
    if (lowered.sha256)
        for (auto& c : *lowered.sha256) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lowered.md5)
        for (auto& c : *lowered.md5) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    Verifier(lowered, fd.get(), report).run(progress);
    return report;
}

}  // namespace cudoctor::installer
