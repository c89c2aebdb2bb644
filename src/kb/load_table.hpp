#pragma once
// The one loader of data/*.tsv tables: the copy compiled into the binary, or DIR/<name> when
// --kb DIR holds one. Used by the KB, explain's error catalog and watch's Xid catalog alike.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "kb/table.hpp"

namespace cudoctor::kb {

/// The largest override file read: our tables are a few hundred KiB.
inline constexpr std::size_t kMaxTableBytes = 8u << 20;

/// One table's text and where it came from.
struct TableText {
    std::string shown_name;   ///< "gpus.tsv", or the override's path: what error messages name
    std::string text;         ///< the whole file
    bool overridden = false;  ///< true when it came from the --kb folder
};

/// data/NAME's text: KB_DIR/NAME when `kb_dir` is given and holds that name, else the embedded
/// copy. Errc::not_found "knowledge-base directory DIR does not
/// exist" when KB_DIR is not a folder; Errc::not_found "table NAME is not embedded" for a name
/// the binary lacks; an override that cannot be read is read_capped()'s error (too_large past
/// kMaxTableBytes, permission, not_found for a dangling link, io "not a regular file" for a
/// folder) as "cannot read PATH: why". Never falls back to the embedded copy when the override
/// is there but unreadable.
[[nodiscard]] Expected<TableText> load_table_text(std::string_view name, const std::optional<std::string>& kb_dir);

/// load_table_text(), then Table::parse() under the shown name (errors name the override's path).
[[nodiscard]] Expected<Table> load_table(std::string_view name, const std::optional<std::string>& kb_dir);

/// KB_DIR/NAME when `kb_dir` is given and has anything by that name (a file, a link, even a
/// folder: reading it then says what is wrong), else nullopt. What load_table_text() reads.
[[nodiscard]] std::optional<std::string> override_file(std::string_view name, const std::optional<std::string>& kb_dir);

}  // namespace cudoctor::kb
