#include "formats/apt_sources.hpp"

#include <charconv>

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

bool apt_field_is(std::string_view a, std::string_view b) { return a.size() == b.size() && text::to_lower(a) == text::to_lower(b); }

/// One "Field: value" of a stanza; continuation lines joined to the value with '\n'.
struct Field {
    std::string name;
    std::string value;
};
struct Stanza {
    int line = 0;
    std::vector<Field> fields;
    const std::string* get(std::string_view name) const {
        for (const auto& f : fields)
            if (apt_field_is(f.name, name)) return &f.value;
        return nullptr;
    }
};

/// The stanzas of a deb822-style file (sources or preferences), at most kMaxAptEntries.
std::vector<Stanza> read_stanzas(std::string_view text) {
    std::vector<Stanza> out;
    bool open = false;
    int number = 0;
    detail::LineReader lines(text);
    std::string_view line;
    while (lines.next(line)) {
        ++number;
        if (text::trim(line).empty()) {
            open = false;
            continue;
        }
        if (line[0] == '#') continue;
        if (line[0] == ' ' || line[0] == '\t') {
            if (open && !out.back().fields.empty() && out.back().fields.back().value.size() < (1u << 16))
                out.back().fields.back().value += "\n" + std::string(text::trim(line));
            continue;
        }
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        if (!open) {
            if (out.size() >= kMaxAptEntries) break;
            out.push_back({number, {}});
            open = true;
        }
        out.back().fields.push_back({std::string(text::trim(line.substr(0, colon))), std::string(text::trim(line.substr(colon + 1)))});
    }
    return out;
}

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    for (auto w : text::fields(s)) out.emplace_back(w);
    return out;
}

}  // namespace

std::vector<AptSourceEntry> parse_apt_sources_list(std::string_view text) {
    std::vector<AptSourceEntry> out;
    detail::LineReader lines(text);
    std::string_view raw;
    int number = 0;
    while (lines.next(raw) && out.size() < kMaxAptEntries) {
        ++number;
        std::string_view line = raw.substr(0, raw.find('#'));
        line = text::trim(line);
        if (line.empty()) continue;
        AptSourceEntry e;
        e.line = number;
        // The type, then an optional [options] block (spaces allowed inside the brackets).
        const auto type_end = line.find_first_of(" \t[");
        if (type_end == std::string_view::npos) continue;
        e.type = std::string(line.substr(0, type_end));
        if (e.type != "deb" && e.type != "deb-src") continue;
        std::string_view rest = text::trim(line.substr(type_end));
        if (!rest.empty() && rest.front() == '[') {
            const auto close = rest.find(']');
            if (close == std::string_view::npos) continue;
            for (auto opt : text::fields(rest.substr(1, close - 1))) {
                const auto eq = opt.find('=');
                if (eq == std::string_view::npos) continue;
                // "signed-by+=" / "signed-by-=" modify a default apt has none of here: keep the value.
                auto key = opt.substr(0, eq);
                if (!key.empty() && (key.back() == '+' || key.back() == '-')) key.remove_suffix(1);
                if (apt_field_is(key, "signed-by")) e.signed_by = std::string(opt.substr(eq + 1));
            }
            rest = rest.substr(close + 1);
        }
        auto w = words(rest);
        if (w.size() < 2) continue;
        e.uri = w[0];
        e.suite = w[1];
        e.components.assign(w.begin() + 2, w.end());
        out.push_back(std::move(e));
    }
    return out;
}

std::vector<AptSourceEntry> parse_apt_sources_deb822(std::string_view text) {
    std::vector<AptSourceEntry> out;
    for (const auto& s : read_stanzas(text)) {
        const auto* types = s.get("Types");
        const auto* uris = s.get("URIs");
        const auto* suites = s.get("Suites");
        if (!types || !uris || !suites) continue;
        AptSourceEntry base;
        base.line = s.line;
        if (const auto* c = s.get("Components")) base.components = words(*c);
        if (const auto* sb = s.get("Signed-By")) {
            const auto first = text::trim(std::string_view(*sb).substr(0, sb->find('\n')));
            if (first.empty() || text::contains(*sb, "-----BEGIN")) base.signed_by_inline = true;
            else base.signed_by = std::string(first);
        }
        if (const auto* en = s.get("Enabled")) {
            const auto v = text::to_lower(text::trim(*en));
            base.enabled = !(v == "no" || v == "false" || v == "0");
        }
        for (const auto& t : words(*types)) {
            if (t != "deb" && t != "deb-src") continue;
            for (const auto& u : words(*uris))
                for (const auto& su : words(*suites)) {
                    if (out.size() >= kMaxAptEntries) return out;
                    AptSourceEntry e = base;
                    e.type = t;
                    e.uri = u;
                    e.suite = su;
                    out.push_back(std::move(e));
                }
        }
    }
    return out;
}

std::vector<AptPreference> parse_apt_preferences(std::string_view text) {
    std::vector<AptPreference> out;
    for (const auto& s : read_stanzas(text)) {
        const auto* package = s.get("Package");
        const auto* pin = s.get("Pin");
        if (!package || !pin) continue;
        AptPreference p;
        p.line = s.line;
        p.package = *package;
        p.pin = *pin;
        if (const auto* pr = s.get("Pin-Priority")) {
            int v = 0;
            const auto t = text::trim(*pr);
            auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
            if (ec == std::errc{} && end == t.data() + t.size()) p.priority = v;
        }
        out.push_back(std::move(p));
    }
    return out;
}

namespace {

bool all_of_set(std::string_view s, bool (*in_set)(char)) {
    for (const char c : s)
        if (!in_set(c)) return false;
    return !s.empty();
}
bool digit(char c) { return c >= '0' && c <= '9'; }
bool lower_or_digit_or_hyphen(char c) { return (c >= 'a' && c <= 'z') || digit(c) || c == '-'; }
bool word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit(c) || c == '_'; }
bool repo_char(char c) { return word_char(c) || c == '.' || c == '-'; }

/// `s` without one `prefix`; false (s untouched) when it does not start with it.
bool eat(std::string_view& s, std::string_view prefix) {
    if (!s.starts_with(prefix)) return false;
    s.remove_prefix(prefix.size());
    return true;
}

}  // namespace

// Written out rather than as std::regex (whose compile alone cost check a million instructions):
// neither the repository nor the architecture holds a '/', so each URI splits one way only.
std::string nvidia_cuda_repo_of(std::string_view uri) {
    if (!eat(uri, "https://") && !eat(uri, "http://")) return "";
    if (!eat(uri, "developer.download.nvidia.com/compute/cuda/repos/")) return "";
    const auto slash = uri.find('/');
    if (slash == std::string_view::npos) return "";
    const auto repo = uri.substr(0, slash);
    auto arch = uri.substr(slash + 1);
    if (arch.ends_with('/')) arch.remove_suffix(1);
    if (!all_of_set(repo, repo_char) || !all_of_set(arch, word_char)) return "";
    return std::string(repo);
}

std::optional<LocalCudaRepo> local_cuda_repo_of(std::string_view uri) {
    if (!eat(uri, "file:")) return std::nullopt;
    eat(uri, "//");
    if (!eat(uri, "/var/")) return std::nullopt;
    if (uri.ends_with('/')) uri.remove_suffix(1);
    const std::string_view name = uri;
    // cuda-repo-<tag>-<major>-<minor>-local: the numbers hold no '-', so they are the last two
    // hyphen-separated parts before "-local", and the tag is all before them.
    if (!eat(uri, "cuda-repo-") || !uri.ends_with("-local")) return std::nullopt;
    uri.remove_suffix(std::string_view("-local").size());
    const auto last = uri.rfind('-');
    if (last == std::string_view::npos || last == 0) return std::nullopt;
    const auto before = uri.rfind('-', last - 1);
    if (before == std::string_view::npos) return std::nullopt;
    const auto tag = uri.substr(0, before);
    const auto major = uri.substr(before + 1, last - before - 1);
    const auto minor = uri.substr(last + 1);
    if (!all_of_set(tag, lower_or_digit_or_hyphen) || !all_of_set(major, digit) || !all_of_set(minor, digit)) return std::nullopt;
    return LocalCudaRepo{std::string(name), std::string(major) + "." + std::string(minor)};
}

}  // namespace cudoctor::formats
