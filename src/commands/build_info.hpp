#pragma once
// What `cudoctor --version` reports: the release, the git revision it was built from, and each
// knowledge-base table compiled in with the date it last changed and where its facts come from.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kb/embedded.hpp"

namespace cudoctor::commands {

/// One data/*.tsv as it was at configure time.
struct TableStamp {
    std::string_view name;         ///< "gpus.tsv"
    std::string_view date;         ///< "2026-11-30" (UTC), "unknown" when neither git nor the file said
    std::string_view date_source;  ///< "git" (last commit touching it) | "file" (mtime: uncommitted or no git)
};

struct BuildInfo {
    std::string_view version;            ///< the project version, "0.1.0"
    std::string_view revision;           ///< `git describe --always --dirty` at configure time, "unknown" outside git
    std::string_view date;               ///< date of that commit (UTC, 2026-11-30); SOURCE_DATE_EPOCH or today outside git
    std::span<const TableStamp> tables;  ///< sorted by name
};

/// The facts of this build. Generated at configure time by cmake/build_info.cmake.
[[nodiscard]] const BuildInfo& build_info();

/// A table's "# source:" text shortened for one line: the distinct web sites it cites
/// (github.com/owner/repo kept whole, "www." dropped), at most three and "+N more"; when it
/// cites none, its first clause cut at a word near 60 characters with "…". Empty in, empty out.
[[nodiscard]] std::string shorten_source(std::string_view source);

/// The "# source:" text of a table (after the colon, trimmed); "" when its first lines have none.
[[nodiscard]] std::string_view table_source(std::string_view table_text);

/// The --version text: "cudoctor VERSION (git REVISION)" and one line per embedded table with
/// its date and shortened source. A table without a stamp gets the date "unknown". With
/// `kb_dir` (--kb DIR), every table that DIR replaces (the KB's, error_catalog.tsv and
/// xid_codes.tsv alike: kb::load_table_text decides) shows "override" for its date, the
/// override's own source and its path, or why it cannot be read.
[[nodiscard]] std::string version_text(const BuildInfo& info, const std::vector<kb::EmbeddedTable>& tables,
                                       const std::optional<std::string>& kb_dir = std::nullopt);

}  // namespace cudoctor::commands
