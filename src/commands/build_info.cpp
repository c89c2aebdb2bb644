#include "commands/build_info.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/text.hpp"
#include "kb/load_table.hpp"

using cudoctor::text::lines;
using cudoctor::text::split;
using cudoctor::text::trim;

namespace cudoctor::commands {
namespace {

constexpr std::array<std::string_view, 8> k_web_suffixes = {".com", ".org", ".net", ".io", ".dev", ".ai", ".gov", ".edu"};

bool url_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '/' || c == '-' || c == '_' || c == ':' || c == '~' || c == '%';
}

/// "https://docs.nvidia.com/cuda/x" → "docs.nvidia.com"; "github.com/a/b/c" → "github.com/a/b";
/// "" when the token names no web site (file names like cuda.py or pci.ids stay out).
std::string site_of(std::string_view token) {
    for (std::string_view scheme : {"https://", "http://"})
        if (token.starts_with(scheme)) token.remove_prefix(scheme.size());
    const auto slash = token.find('/');
    std::string_view host = token.substr(0, slash);
    while (!host.empty() && (host.back() == '.' || host.back() == ':')) host.remove_suffix(1);
    if (host.find('.') == std::string_view::npos) return "";
    for (char c : host)
        if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-'))
            return "";
    if (std::none_of(k_web_suffixes.begin(), k_web_suffixes.end(), [&](std::string_view s) { return host.ends_with(s); })) return "";
    if (host.starts_with("www.")) host.remove_prefix(4);
    std::string site(host);
    if (host == "github.com" && slash != std::string_view::npos) {
        auto parts = split(token.substr(slash + 1), '/');
        if (parts.size() >= 2 && !parts[0].empty() && !parts[1].empty()) {
            std::string_view repo = parts[1];
            while (!repo.empty() && (repo.back() == '.' || repo.back() == ',')) repo.remove_suffix(1);
            site += fmt::format("/{}/{}", parts[0], repo);
        }
    }
    return site;
}

std::string first_clause(std::string_view text, std::size_t limit) {
    text = text.substr(0, text.find(';'));
    text = trim(text);
    if (text.size() <= limit) return std::string(text);
    auto cut = text.rfind(' ', limit);
    if (cut == std::string_view::npos || cut < limit / 2) cut = limit;
    return std::string(trim(text.substr(0, cut))) + "…";
}

}  // namespace

std::string shorten_source(std::string_view source) {
    std::vector<std::string> sites;
    std::size_t i = 0;
    while (i < source.size()) {
        while (i < source.size() && !url_char(source[i])) ++i;
        std::size_t j = i;
        while (j < source.size() && url_char(source[j])) ++j;
        auto site = site_of(source.substr(i, j - i));
        if (!site.empty() && std::find(sites.begin(), sites.end(), site) == sites.end()) sites.push_back(std::move(site));
        i = j;
    }
    if (sites.empty()) return first_clause(source, 60);
    constexpr std::size_t k_shown = 3;
    std::string out;
    for (std::size_t k = 0; k < sites.size() && k < k_shown; ++k) out += (k ? ", " : "") + sites[k];
    if (sites.size() > k_shown) out += fmt::format(" +{} more", sites.size() - k_shown);
    return out;
}

std::string_view table_source(std::string_view table_text) {
    for (auto line : lines(table_text)) {
        if (!line.starts_with('#')) break;  // the header row: no more comments
        line = trim(line.substr(1));
        if (line.starts_with("source:")) return trim(line.substr(7));
    }
    return {};
}

std::string version_text(const BuildInfo& info, const std::vector<kb::EmbeddedTable>& tables, const std::optional<std::string>& kb_dir) {
    std::string out = fmt::format("cudoctor {} (git {})\n", info.version, info.revision);
    out += fmt::format("knowledge base: {} tables compiled in (date = last change)\n", tables.size());
    std::size_t width = 0;
    for (const auto& t : tables) width = std::max(width, t.name.size());
    bool any_file_date = false;
    std::size_t overridden = 0;
    for (const auto& t : tables) {
        std::string date = "unknown";
        for (const auto& s : info.tables)
            if (s.name == t.name) {
                date = std::string(s.date);
                if (s.date_source == "file") {
                    date += "*";
                    any_file_date = true;
                }
            }
        const auto file = kb::override_file(t.name, kb_dir);
        if (!file) {
            out += fmt::format("  {:<{}}  {:<11} {}\n", t.name, width, date, shorten_source(table_source(t.text)));
            continue;
        }
        ++overridden;
        auto text = kb::read_override(*file);
        if (text)
            out += fmt::format("  {:<{}}  {:<11} {} ({}, from {})\n", t.name, width, "override", shorten_source(table_source(text->text)),
                               text->shown_name, file->origin);
        else out += fmt::format("  {:<{}}  {:<11} {}\n", t.name, width, "unreadable", text.error().message);
    }
    if (any_file_date) out += "  * file date: the table differs from its last commit, or the build is outside git\n";
    std::error_code ec;
    std::vector<std::string> searched;
    for (const auto& folder : kb::kb_folders(kb_dir)) {
        const bool exists = std::filesystem::is_directory(folder.dir, ec);
        if (folder.required && !exists)
            out += fmt::format("  override: knowledge-base directory {} ({}) does not exist\n", folder.dir, folder.origin);
        if (exists) searched.push_back(folder.dir == folder.origin ? folder.dir : fmt::format("{} ({})", folder.dir, folder.origin));
    }
    if (overridden > 0)
        out += fmt::format("  override: {} of these tables read from {}, not the compiled-in copy (looked up in this order)\n", overridden,
                           fmt::join(searched, ", then "));
    return out;
}

}  // namespace cudoctor::commands
