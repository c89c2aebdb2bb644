#include "formats/kernel_log.hpp"

#include <cctype>
#include <map>

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

constexpr std::size_t kMaxLine = 64 * 1024;
constexpr std::size_t kMaxMessage = 300;

/// Reads a run of digits at `pos` (at most `max_digits`); nullopt when none or too many.
std::optional<long> read_number(std::string_view s, std::size_t& pos, std::size_t max_digits) {
    std::size_t start = pos;
    long value = 0;
    while (pos < s.size() && text::is_digit(s[pos])) {
        if (pos - start >= max_digits) return std::nullopt;
        value = value * 10 + (s[pos] - '0');
        ++pos;
    }
    if (pos == start) return std::nullopt;
    return value;
}

/// "[ 1843.308145]" → 1843.308145, looked for anywhere in `prefix`.
std::optional<double> bracket_uptime(std::string_view prefix) {
    for (std::size_t open = prefix.find('['); open != std::string_view::npos; open = prefix.find('[', open + 1)) {
        std::size_t pos = open + 1;
        while (pos < prefix.size() && prefix[pos] == ' ') ++pos;
        std::size_t int_start = pos;
        auto whole = read_number(prefix, pos, 12);
        if (!whole || pos >= prefix.size() || prefix[pos] != '.') continue;
        ++pos;
        std::size_t frac_start = pos;
        auto frac = read_number(prefix, pos, 9);
        if (!frac || pos >= prefix.size() || prefix[pos] != ']') continue;
        (void)int_start;
        double scale = 1;
        for (std::size_t i = frac_start; i < pos; ++i) scale *= 10;
        return static_cast<double>(*whole) + static_cast<double>(*frac) / scale;
    }
    return std::nullopt;
}

bool is_iso_date(std::string_view s) {
    return s.size() >= 19 && text::is_digit(s[0]) && text::is_digit(s[1]) && text::is_digit(s[2]) && text::is_digit(s[3]) && s[4] == '-' &&
           text::is_digit(s[5]) && text::is_digit(s[6]) && s[7] == '-' && text::is_digit(s[8]) && text::is_digit(s[9]) &&
           (s[10] == 'T' || s[10] == ' ');
}

bool is_syslog_date(std::string_view s) {
    // "May  6 00:38:27": month, day (space-padded), time.
    return s.size() >= 15 && std::isupper(static_cast<unsigned char>(s[0])) && std::islower(static_cast<unsigned char>(s[1])) &&
           std::islower(static_cast<unsigned char>(s[2])) && s[3] == ' ' && (s[4] == ' ' || text::is_digit(s[4])) && text::is_digit(s[5]) &&
           s[6] == ' ' && text::is_digit(s[7]) && text::is_digit(s[8]) && s[9] == ':' && s[12] == ':' && text::is_digit(s[14]);
}

/// The time stamps in front of the message: wall clock and/or seconds since boot.
void read_prefix(std::string_view prefix, KernelEvent& e) {
    // /dev/kmsg: "PRIORITY,SEQUENCE,MICROSECONDS,FLAGS;message".
    if (!prefix.empty() && prefix.back() == ';') {
        auto fields = text::split(prefix.substr(0, prefix.size() - 1), ',');
        if (fields.size() >= 4) {
            std::size_t pos = 0;
            auto usec = read_number(fields[2], pos, 18);
            if (usec && pos == fields[2].size()) e.uptime_s = static_cast<double>(*usec) / 1e6;
        }
    }
    auto trimmed = text::trim(prefix);
    if (is_iso_date(trimmed)) {
        e.wall_time =
            std::string(trimmed.substr(0, trimmed.find(' ', 11) == std::string_view::npos ? trimmed.size() : trimmed.find(' ', 11)));
    } else if (is_syslog_date(trimmed)) {
        e.wall_time = std::string(trimmed.substr(0, 15));
    }
    if (!e.uptime_s) e.uptime_s = bracket_uptime(prefix);
    if (e.wall_time.empty()) {
        // "[Mon Jan 12 10:00:00 2024]" (dmesg -T) or "[2026-04-22T21:27:51.29Z]" (Talos).
        auto open = prefix.find('[');
        auto close = open == std::string_view::npos ? open : prefix.find(']', open);
        if (close != std::string_view::npos && close - open > 12) {
            auto inside = prefix.substr(open + 1, close - open - 1);
            if (is_iso_date(inside) || (inside.size() >= 20 && inside[3] == ' ' && inside.find(':') != std::string_view::npos))
                e.wall_time = std::string(inside);
        }
    }
}

/// "pid=1234, name=python, rest" → pid, name and rest.
void read_pid_and_name(std::string_view rest, KernelEvent& e) {
    auto take_field = [&](std::string_view key) -> std::optional<std::string_view> {
        if (!rest.starts_with(key)) return std::nullopt;
        auto end = rest.find(", ");
        auto value = rest.substr(key.size(), end == std::string_view::npos ? std::string_view::npos : end - key.size());
        rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 2);
        return value;
    };
    if (auto pid = take_field("pid=")) {
        std::size_t pos = 0;
        auto value = read_number(*pid, pos, 10);
        if (value && pos == pid->size()) e.pid = *value;
    }
    if (auto name = take_field("name=")) {
        if (*name != "<unknown>" && *name != "'<unknown>'") e.process = text::printable(*name, 61);
    }
    e.message = text::printable(text::trim(rest), kMaxMessage - 3);  // room for the "…" of a cut
}

/// "(PCI:0000:01:00): 79, rest" or "(0000:01:00): 13, rest" after "Xid " / "SXid ".
bool read_xid_body(std::string_view body, KernelEvent& e) {
    if (!body.starts_with('(')) return false;
    auto close = body.find(')');
    if (close > 64) return false;  // npos too
    auto where = body.substr(1, close - 1);
    if (where.starts_with("PCI:")) where.remove_prefix(4);
    e.pci = text::to_lower(where);
    std::size_t pos = close + 1;
    if (pos >= body.size() || body[pos] != ':') return false;
    ++pos;
    while (pos < body.size() && body[pos] == ' ') ++pos;
    auto code = read_number(body, pos, 5);
    if (!code || *code > 99999) return false;
    e.code = static_cast<int>(*code);
    if (pos < body.size() && body[pos] != ',' && body[pos] != ' ') return false;
    if (pos < body.size() && body[pos] == ',') ++pos;
    while (pos < body.size() && body[pos] == ' ') ++pos;
    read_pid_and_name(body.substr(pos), e);
    return true;
}

/// "0000:b3:00.0" → "0000:b3:00" (the form Xid lines use).
std::string without_function(std::string_view address) {
    auto dot = address.rfind('.');
    if (dot != std::string_view::npos && dot + 2 == address.size()) address = address.substr(0, dot);
    return text::to_lower(address);
}

/// A report on one line, without context; `nvrm` is the offset of "NVRM: " or of "SXid (".
std::optional<KernelEvent> parse_one(std::string_view line) {
    if (line.size() > kMaxLine) line = line.substr(0, kMaxLine);
    KernelEvent e;
    if (auto at = line.find("NVRM: Xid "); at != std::string_view::npos) {
        if (!read_xid_body(line.substr(at + 10), e)) return std::nullopt;
        e.kind = KernelEventKind::xid;
        read_prefix(line.substr(0, at), e);
        return e;
    }
    if (auto at = line.find("SXid ("); at != std::string_view::npos) {
        if (!read_xid_body(line.substr(at + 5), e)) return std::nullopt;
        e.kind = KernelEventKind::sxid;
        auto start = line.rfind("nvidia-nvswitch", at);
        read_prefix(line.substr(0, start == std::string_view::npos ? at : start), e);
        return e;
    }
    auto nvrm = line.find("NVRM: ");
    if (nvrm == std::string_view::npos) return std::nullopt;
    auto message = line.substr(nvrm + 6);
    if (message.find("RmInitAdapter failed") != std::string_view::npos) {
        e.kind = KernelEventKind::rm_init_failed;
    } else if (message.starts_with("API mismatch")) {
        e.kind = KernelEventKind::api_mismatch;
    } else if (message.find("fallen off the bus") != std::string_view::npos) {
        e.kind = KernelEventKind::fallen_off_bus;
        // "NVRM: GPU at PCI:0000:01:00: GPU has fallen off the bus." / "NVRM: GPU 0000:01:00.0: …"
        for (std::string_view lead : {"GPU at PCI:", "GPU "}) {
            if (!message.starts_with(lead)) continue;
            auto addr = message.substr(lead.size());
            auto end = addr.find(": ");
            if (end < 20 && addr.find(':') < end) e.pci = without_function(addr.substr(0, end));
            break;
        }
    } else {
        return std::nullopt;
    }
    e.message = text::printable(text::trim(message), kMaxMessage - 3);
    read_prefix(line.substr(0, nvrm), e);
    return e;
}

}  // namespace

const char* to_string(KernelEventKind kind) {
    switch (kind) {
        case KernelEventKind::xid: return "xid";
        case KernelEventKind::sxid: return "sxid";
        case KernelEventKind::fallen_off_bus: return "fallen-off-bus";
        case KernelEventKind::rm_init_failed: return "rm-init-failed";
        case KernelEventKind::api_mismatch: return "api-mismatch";
    }
    return "?";
}

std::optional<KernelEvent> parse_kernel_line(std::string_view line) {
    auto e = parse_one(line);
    if (e) e->line = 1;
    return e;
}

std::vector<KernelEvent> parse_kernel_log(std::string_view text, std::size_t max_events) {
    std::vector<KernelEvent> events;
    std::map<std::string, std::string> uuids;  // pci → GPU-… from "NVRM: GPU at PCI:…: GPU-…"
    std::string pending_gpu;                   // "NVRM: The NVIDIA GPU 0000:b3:00.0" awaiting its "fallen off"
    std::size_t pending_line = 0, number = 0;
    KernelEvent pending_prefix;
    detail::LineReader reader(text);
    std::string_view line;
    while (events.size() < max_events && reader.next(line)) {
        ++number;
        if (line.size() > kMaxLine) line = line.substr(0, kMaxLine);
        if (line.find("NVRM: ") == std::string_view::npos && line.find("SXid (") == std::string_view::npos) continue;
        if (auto at = line.find("NVRM: GPU at PCI:"); at != std::string_view::npos) {
            auto rest = line.substr(at + 17);
            auto sep = rest.find(": GPU-");
            if (sep < 20) {  // npos is not
                auto uuid = rest.substr(sep + 2);
                auto end = uuid.find_first_of(" \t");
                uuids[text::to_lower(rest.substr(0, sep))] = text::printable(uuid.substr(0, end), 61);
                continue;
            }
        }
        if (auto at = line.find("NVRM: The NVIDIA GPU "); at != std::string_view::npos) {
            auto addr = line.substr(at + 21);
            addr = addr.substr(0, addr.find_first_of(" \t"));
            // Only a PCI address ("0000:b3:00.0"): a garbled line must not become a device name.
            const bool looks_like_pci =
                !addr.empty() && addr.size() <= 20 && addr.find_first_not_of("0123456789abcdefABCDEF:.") == std::string_view::npos;
            pending_gpu = looks_like_pci ? without_function(addr) : std::string();
            pending_line = number;
            pending_prefix = KernelEvent{};
            read_prefix(line.substr(0, at), pending_prefix);
            continue;
        }
        auto e = parse_one(line);
        if (!e) continue;
        if (e->kind == KernelEventKind::fallen_off_bus && e->pci.empty() && !pending_gpu.empty() && number - pending_line <= 3) {
            e->pci = pending_gpu;
            e->line = pending_line;
            e->message = "The NVIDIA GPU " + pending_gpu + " has fallen off the bus and is not responding to commands.";
            if (!e->uptime_s) e->uptime_s = pending_prefix.uptime_s;
            if (e->wall_time.empty()) e->wall_time = pending_prefix.wall_time;
            pending_gpu.clear();
        } else {
            e->line = number;
        }
        if (auto it = uuids.find(e->pci); it != uuids.end()) e->gpu_uuid = it->second;
        events.push_back(std::move(*e));
    }
    return events;
}

}  // namespace cudoctor::formats
