#pragma once
// The one loader of data/*.tsv tables. Each table is looked up, in this order, in the --kb DIR,
// in $CUDOCTOR_KB, in /etc/cudoctor/kb/ and last in the copy compiled into the binary: the first
// folder that has the table gives it, so a fleet can ship a newer gpus.tsv alone. Used by the KB,
// explain's error catalog and watch's Xid catalog alike.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "kb/table.hpp"

namespace cudoctor::kb {

/// The largest override file read: our tables are a few hundred KiB.
inline constexpr std::size_t kMaxTableBytes = 8u << 20;

/// One table's text and where it came from.
struct TableText {
    std::string shown_name;   ///< "gpus.tsv", or the override's path: what error messages name
    std::string text;         ///< the whole file
    bool overridden = false;  ///< true when it came from a folder, not the compiled-in copy
    std::string origin;       ///< "--kb", "$CUDOCTOR_KB", "/etc/cudoctor/kb" or "built-in"
};

/// One folder tables are looked up in, before the compiled-in copy.
struct KbFolder {
    std::string dir;
    std::string origin;     ///< how it was named: "--kb", "$CUDOCTOR_KB", "/etc/cudoctor/kb"
    bool required = false;  ///< named by the user (--kb, $CUDOCTOR_KB): a missing folder is an error
};

/// Where tables are looked up besides --kb: the value of $CUDOCTOR_KB and the system folder.
/// main() sets it once from the real environment; until then (unit tests) only --kb and the
/// compiled-in copy are used, so no test depends on the environment it runs in.
struct KbSearch {
    std::optional<std::string> env_dir;  ///< $CUDOCTOR_KB ("" counts as unset)
    std::optional<std::string> system_dir;
};
inline constexpr std::string_view kSystemKbDir = "/etc/cudoctor/kb";
void set_kb_search(KbSearch search);
/// The search set from the process's environment: $CUDOCTOR_KB, then /etc/cudoctor/kb.
[[nodiscard]] KbSearch kb_search_from_environment();

/// The folders looked up for `kb_dir` (from --kb) under the current search, in order.
[[nodiscard]] std::vector<KbFolder> kb_folders(const std::optional<std::string>& kb_dir);

/// data/NAME's text from the first of kb_folders() that holds that name, else the embedded
/// copy. Errc::not_found "knowledge-base directory DIR does not exist" when --kb's DIR is not a
/// folder ("… DIR (from $CUDOCTOR_KB) …" for the variable's; a missing /etc/cudoctor/kb is
/// simply skipped); Errc::not_found "table NAME is not embedded" for a name
/// the binary lacks; an override that cannot be read is read_capped()'s error (too_large past
/// kMaxTableBytes, permission, not_found for a dangling link, io "not a regular file" for a
/// folder) as "cannot read PATH: why". Never falls back to the embedded copy when the override
/// is there but unreadable.
[[nodiscard]] Expected<TableText> load_table_text(std::string_view name, const std::optional<std::string>& kb_dir);

/// load_table_text(), then Table::parse() under the shown name (errors name the override's path).
[[nodiscard]] Expected<Table> load_table(std::string_view name, const std::optional<std::string>& kb_dir);

/// FOLDER/NAME for the first of kb_folders() that has anything by that name (a file, a link,
/// even a folder: reading it then says what is wrong), else nullopt. What load_table_text() reads.
struct OverrideFile {
    std::string path;
    std::string origin;  ///< the KbFolder's origin
};
[[nodiscard]] std::optional<OverrideFile> override_file(std::string_view name, const std::optional<std::string>& kb_dir);

/// The override at `file` read as load_table_text() reads it (capped, errors "cannot read PATH: why").
[[nodiscard]] Expected<TableText> read_override(const OverrideFile& file);

/// Where load_table_text() reads data/NAME without reading it: the override file, or nullopt
/// for the compiled-in copy. The same errors as load_table_text() for a missing --kb or
/// $CUDOCTOR_KB folder and for a name the binary lacks.
[[nodiscard]] Expected<std::optional<OverrideFile>> locate_table(std::string_view name, const std::optional<std::string>& kb_dir);

/// The compiled-in text of data/NAME; nullopt when the binary lacks that table.
[[nodiscard]] std::optional<std::string_view> embedded_text(std::string_view name);

}  // namespace cudoctor::kb
