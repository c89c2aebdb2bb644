#include "formats/dpkg_status.hpp"

#include "common/text.hpp"
#include "formats/line_reader.hpp"

namespace cudoctor::formats {
namespace {

bool equals_ignore_case(std::string_view a, std::string_view lower) {
    if (a.size() != lower.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != lower[i]) return false;
    }
    return true;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/// text::trim() written out: called for every kept field of a thousand stanzas, and
/// find_first_not_of over a set of six was most of its cost.
std::string_view trim_spaces(std::string_view s) {
    std::size_t b = 0;
    std::size_t e = s.size();
    while (b < e && is_space(s[b])) ++b;
    while (e > b && is_space(s[e - 1])) --e;
    return s.substr(b, e - b);
}

bool is_blank(std::string_view line) {
    for (const char c : line)
        if (c != ' ' && c != '\t') return false;
    return true;
}

/// The member a field name fills, or nullptr for a field the doctor does not keep: the same
/// switch for a built package (std::string members) and a view (std::string_view members).
template <class Stanza>
auto field_of(Stanza& p, std::string_view name) -> decltype(&p.status) {
    switch (name.size()) {
        case 6:
            if (equals_ignore_case(name, "status")) return &p.status;
            if (equals_ignore_case(name, "source")) return &p.source;
            return nullptr;
        case 7:
            if (equals_ignore_case(name, "package")) return &p.name;
            if (equals_ignore_case(name, "version")) return &p.version;
            return nullptr;
        case 12: return equals_ignore_case(name, "architecture") ? &p.architecture : nullptr;
        default: return nullptr;
    }
}

/// Ends the stanza being filled (the last element of `out`, if `open`): dropped without a name.
void finish(std::vector<DpkgPackage>& out, bool& open) {
    if (!open) return;
    open = false;
    DpkgPackage& p = out.back();
    if (p.name.empty()) {
        out.pop_back();
        return;
    }
    // "Source: glibc (2.36-9)" names the source version only when it differs; keep the name.
    const auto space = p.source.find(' ');
    if (space != std::string::npos) p.source.resize(space);
}

}  // namespace

bool DpkgPackage::installed() const { return status.ends_with(" installed"); }
bool DpkgPackage::held() const { return status.starts_with("hold "); }

std::vector<DpkgPackage> parse_dpkg_status(std::string_view text) {
    std::vector<DpkgPackage> out;
    bool open = false;  // out.back() is the stanza being read (filled in place: no copies)
    detail::LineReader lines(text);
    std::string_view line;
    while (lines.next(line)) {
        if (line.empty() || ((line[0] == ' ' || line[0] == '\t') && is_blank(line))) {
            finish(out, open);
            continue;
        }
        if (line[0] == ' ' || line[0] == '\t' || line[0] == '#') continue;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        if (!open) {
            out.emplace_back();
            open = true;
        }
        if (std::string* field = field_of(out.back(), line.substr(0, colon))) field->assign(text::trim(line.substr(colon + 1)));
    }
    finish(out, open);
    return out;
}

void for_each_dpkg_package(std::string_view text, const std::function<void(const DpkgStanzaView&)>& each) {
    DpkgStanzaView stanza;
    bool open = false;
    auto finish_view = [&] {
        if (!open) return;
        open = false;
        if (stanza.name.empty()) return;
        const auto space = stanza.source.find(' ');
        if (space != std::string_view::npos) stanza.source = stanza.source.substr(0, space);
        each(stanza);
    };
    detail::LineReader lines(text);
    std::string_view line;
    while (lines.next(line)) {
        if (line.empty() || ((line[0] == ' ' || line[0] == '\t') && is_blank(line))) {
            finish_view();
            continue;
        }
        if (line[0] == ' ' || line[0] == '\t' || line[0] == '#') continue;
        // The kept fields' names are 6, 7 and 12 letters long, with no ':' in them: a line
        // whose byte there is no ':' names another field (or none), and is not searched for one.
        // A stanza is opened at its first kept field instead of its first field: one without
        // any is dropped at its end either way, and nothing before that point is kept.
        std::size_t colon = 0;
        for (const std::size_t at : {std::size_t{6}, std::size_t{7}, std::size_t{12}})
            if (line.size() > at && line[at] == ':') {
                colon = at;  // the first of them: "Status::" names Status
                break;
            }
        if (colon == 0) continue;
        std::string_view* field = field_of(stanza, line.substr(0, colon));
        if (!field) continue;
        if (!open) {
            stanza = DpkgStanzaView{};
            open = true;
            field = field_of(stanza, line.substr(0, colon));
        }
        *field = trim_spaces(line.substr(colon + 1));
    }
    finish_view();
}

}  // namespace cudoctor::formats
