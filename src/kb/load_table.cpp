#include "kb/load_table.hpp"

#include <filesystem>

#include "host/files.hpp"
#include "kb/embedded.hpp"

namespace cudoctor::kb {
namespace fs = std::filesystem;

std::optional<std::string> override_file(std::string_view name, const std::optional<std::string>& kb_dir) {
    if (!kb_dir) return std::nullopt;
    const auto path = fs::path(*kb_dir) / std::string(name);
    std::error_code ec;
    // Anything by that name, not only a regular file: an unreadable override is an error, never
    // silently the embedded copy.
    if (!fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
    return path.string();
}

Expected<TableText> load_table_text(std::string_view name, const std::optional<std::string>& kb_dir) {
    if (kb_dir) {
        std::error_code ec;
        if (!fs::is_directory(*kb_dir, ec)) return fail(Errc::not_found, "knowledge-base directory " + *kb_dir + " does not exist");
        if (auto path = override_file(name, kb_dir)) {
            auto text = host::read_capped(*path, kMaxTableBytes);
            if (!text) return fail(text.error().code, "cannot read " + text.error().message);
            return TableText{*path, std::move(*text), true};
        }
    }
    for (const auto& table : embedded_tables())
        if (table.name == name) return TableText{std::string(name), std::string(table.text), false};
    return fail(Errc::not_found, "table " + std::string(name) + " is not embedded");
}

Expected<Table> load_table(std::string_view name, const std::optional<std::string>& kb_dir) {
    auto text = load_table_text(name, kb_dir);
    if (!text) return Unexpected<Error>(text.error());
    return Table::parse(text->shown_name, text->text);
}

}  // namespace cudoctor::kb
