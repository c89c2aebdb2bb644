#pragma once
// Reading a fleet's snapshot files in parallel, each reduced to a NodeSummary as soon as it is
// parsed: at most one whole snapshot per worker thread is alive at any time.
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "common/error.hpp"
#include "fleet/summary.hpp"
#include "kb/kb.hpp"

namespace cudoctor::fleet {

/// Largest snapshot file read (real ones are tens of kilobytes); larger ones are unreadable.
inline constexpr std::size_t kMaxSnapshotBytes = 64u << 20;

/// A file that gave no node, and why in one line ("truncated JSON", "snapshot schema 2 …").
struct Unreadable {
    std::string file;
    std::string code;  ///< "parse", "unsupported", "too large", "duplicate", "io", …
    std::string message;
};

/// The snapshot files named by `inputs`: a file is taken as is, a folder gives every *.json
/// below it (links to folders are not followed, so a link loop cannot recurse), sorted.
/// Errc::not_found for an input that does not exist; Errc::usage when nothing was found.
Expected<std::vector<std::string>> snapshot_files(const std::vector<std::string>& inputs);

/// Reads one snapshot file: a regular file of at most kMaxSnapshotBytes (a FIFO or a device is
/// refused before it is opened for reading), parsed with snapshot::from_json_text.
Expected<snapshot::Snapshot> read_snapshot_file(const std::string& file);

/// Which reader parses the snapshots: simdjson's (snapshot/fast_reader.hpp), falling back to
/// read_snapshot_file for any file it does not answer, or read_snapshot_file for every file. Both
/// give the same results; tests compare them.
enum class SnapshotParser { fast, nlohmann };

/// Reads and summarises every file on `jobs` threads (0: one per core, at most 16). The result
/// keeps the order of `files`; each entry is a summary or the reason the file gave none.
/// `with_metrics`: each summary also keeps its node's metrics (fleet --format prometheus).
/// Memory: one file's text, parser state and Snapshot per thread at a time, plus the summaries.
std::vector<std::variant<NodeSummary, Unreadable>> read_fleet(const std::vector<std::string>& files, const kb::Kb& kb, unsigned jobs = 0,
                                                              bool with_metrics = false, SnapshotParser parser = SnapshotParser::fast);

}  // namespace cudoctor::fleet
