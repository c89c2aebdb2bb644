#include "kb/load_table.hpp"

#include <cstdlib>
#include <filesystem>

#include "host/files.hpp"
#include "kb/embedded.hpp"

namespace cudoctor::kb {
namespace fs = std::filesystem;

namespace {

KbSearch& current_search() {
    static KbSearch search;
    return search;
}

bool is_folder(const std::string& dir) {
    std::error_code ec;
    return fs::is_directory(dir, ec);
}

}  // namespace

void set_kb_search(KbSearch search) { current_search() = std::move(search); }

KbSearch kb_search_from_environment() {
    KbSearch search;
    // The KB is the tool's own data, not the machine's: it is read from this host's /etc even
    // when --root inspects an image.
    if (const char* env = std::getenv("CUDOCTOR_KB"); env != nullptr && *env != '\0') search.env_dir = env;
    search.system_dir = std::string(kSystemKbDir);
    return search;
}

std::vector<KbFolder> kb_folders(const std::optional<std::string>& kb_dir) {
    std::vector<KbFolder> folders;
    if (kb_dir) folders.push_back({*kb_dir, "--kb", true});
    const auto& search = current_search();
    if (search.env_dir && !search.env_dir->empty()) folders.push_back({*search.env_dir, "$CUDOCTOR_KB", true});
    if (search.system_dir) folders.push_back({*search.system_dir, std::string(kSystemKbDir), false});
    return folders;
}

namespace {

/// FOLDER/NAME when it has anything by that name, not only a regular file: an unreadable
/// override is an error, never silently the next folder's copy.
std::optional<std::string> entry_in(const std::string& dir, std::string_view name) {
    const auto path = fs::path(dir) / std::string(name);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
    return path.string();
}

}  // namespace

std::optional<OverrideFile> override_file(std::string_view name, const std::optional<std::string>& kb_dir) {
    for (const auto& folder : kb_folders(kb_dir)) {
        if (!is_folder(folder.dir)) continue;
        if (auto path = entry_in(folder.dir, name)) return OverrideFile{*path, folder.origin};
    }
    return std::nullopt;
}

Expected<TableText> read_override(const OverrideFile& file) {
    auto text = host::read_capped(file.path, kMaxTableBytes);
    if (!text) return fail(text.error().code, "cannot read " + text.error().message);
    return TableText{file.path, std::move(*text), true, file.origin};
}

std::optional<std::string_view> embedded_text(std::string_view name) {
    for (const auto& table : embedded_tables())
        if (table.name == name) return table.text;
    return std::nullopt;
}

Expected<std::optional<OverrideFile>> locate_table(std::string_view name, const std::optional<std::string>& kb_dir) {
    for (const auto& folder : kb_folders(kb_dir)) {
        if (!is_folder(folder.dir)) {
            if (!folder.required) continue;
            const std::string from = folder.origin == "--kb" ? "" : " (from " + folder.origin + ")";
            return fail(Errc::not_found, "knowledge-base directory " + folder.dir + from + " does not exist");
        }
        if (auto path = entry_in(folder.dir, name)) return std::optional<OverrideFile>(OverrideFile{*path, folder.origin});
    }
    if (!embedded_text(name)) return fail(Errc::not_found, "table " + std::string(name) + " is not embedded");
    return std::optional<OverrideFile>();
}

Expected<TableText> load_table_text(std::string_view name, const std::optional<std::string>& kb_dir) {
    auto located = locate_table(name, kb_dir);
    if (!located) return Unexpected<Error>(located.error());
    if (*located) return read_override(**located);
    return TableText{std::string(name), std::string(*embedded_text(name)), false, "built-in"};
}

Expected<Table> load_table(std::string_view name, const std::optional<std::string>& kb_dir) {
    auto text = load_table_text(name, kb_dir);
    if (!text) return Unexpected<Error>(text.error());
    return Table::parse(text->shown_name, text->text);
}

}  // namespace cudoctor::kb
