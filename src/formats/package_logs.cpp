#include "formats/package_logs.hpp"

#include "common/text.hpp"

namespace cudoctor::formats {
namespace {

std::string strip_arch(std::string_view package) { return std::string(package.substr(0, package.find(':'))); }
std::string none_to_empty(std::string_view v) { return v == "<none>" ? std::string() : std::string(v); }

/// "a:amd64 (1.0, 2.0), b:amd64 (3.0, automatic)" → changes; commas inside parentheses belong
/// to the versions.
void parse_change_list(std::string_view action, std::string_view list, std::vector<AptTransaction::Change>& out) {
    std::size_t i = 0;
    while (i < list.size()) {
        const auto open = list.find('(', i);
        if (open == std::string_view::npos) break;
        const auto close = list.find(')', open);
        if (close == std::string_view::npos) break;
        AptTransaction::Change c;
        c.action = text::to_lower(action);
        c.package = strip_arch(text::trim(list.substr(i, open - i)));
        auto versions = text::split(list.substr(open + 1, close - open - 1), ',');
        std::vector<std::string> vs;
        for (auto v : versions) {
            v = text::trim(v);
            if (!v.empty() && v != "automatic") vs.emplace_back(v);
        }
        if (c.action == "upgrade" || c.action == "downgrade") {
            if (!vs.empty()) c.old_version = vs[0];
            if (vs.size() > 1) c.new_version = vs[1];
        } else if (c.action == "remove" || c.action == "purge") {
            if (!vs.empty()) c.old_version = vs[0];
        } else if (!vs.empty()) {
            c.new_version = vs[0];
        }
        if (!c.package.empty()) out.push_back(std::move(c));
        i = close + 1;
        while (i < list.size() && (list[i] == ',' || list[i] == ' ')) ++i;
    }
}

}  // namespace

std::vector<DpkgLogAction> parse_dpkg_log(std::string_view text_data) {
    std::vector<DpkgLogAction> out;
    for (auto line : text::lines(text_data)) {
        auto f = text::fields(line);
        if (f.size() < 6) continue;
        const auto action = f[2];
        if (action != "install" && action != "upgrade" && action != "remove" && action != "purge") continue;
        if (f[0].size() != 10 || f[0][4] != '-') continue;
        out.push_back(
            {std::string(f[0]) + " " + std::string(f[1]), std::string(action), strip_arch(f[3]), none_to_empty(f[4]), none_to_empty(f[5])});
    }
    return out;
}

std::vector<AptTransaction> parse_apt_history(std::string_view text_data) {
    std::vector<AptTransaction> out;
    AptTransaction current;
    bool open = false;
    auto flush = [&] {
        if (open) out.push_back(std::move(current));
        current = AptTransaction{};
        open = false;
    };
    for (auto line : text::lines(text_data)) {
        if (text::trim(line).empty()) {
            flush();
            continue;
        }
        const auto colon = line.find(": ");
        if (colon == std::string_view::npos) continue;
        const auto key = line.substr(0, colon);
        const auto value = text::trim(line.substr(colon + 2));
        if (key == "Start-Date") {
            flush();
            current.start = std::string(value);
            open = true;
        } else if (!open) {
            continue;
        } else if (key == "Commandline") {
            current.commandline = std::string(value);
        } else if (key == "Requested-By") {
            current.requested_by = std::string(value);
        } else if (key == "Install" || key == "Upgrade" || key == "Remove" || key == "Purge" || key == "Downgrade" || key == "Reinstall") {
            parse_change_list(key, value, current.changes);
        }
    }
    flush();
    return out;
}

}  // namespace cudoctor::formats
