#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "commands/machine.hpp"
#include "common/error.hpp"
#include "common/exit_status.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::commands {

struct CheckOptions {
    bool quiet = false;                        ///< --quiet: the verdict line only
    MachineOptions machine;                    ///< --root, --kb, --python, --no-exec
    std::optional<std::string> snapshot_file;  ///< --snapshot FILE: render a saved snapshot
    /// --output FILE: write the report there (atomically: a temporary file renamed over it)
    /// instead of to stdout; "%h" in it becomes the machine's host name, "%%" a "%".
    std::optional<std::string> output;
    bool json = false;        ///< --json, or --format json
    bool markdown = false;    ///< --markdown, or --format markdown
    bool prometheus = false;  ///< --format prometheus: the metrics of report/metrics.hpp
    bool verbose = false;
    bool color = false;             ///< ANSI colours (main's decision for standard output)
    std::string fail_on = "error";  ///< "error" | "warning"
};

/// Reads a snapshot saved by `check --json` (at most 256 MiB; a pipe such as <(…) works): the
/// file name is in every error, and a folder or unreadable file is Errc::io, not a parse error.
Expected<snapshot::Snapshot> load_snapshot(const std::string& file);

/// `cudoctor check`: probe (or load) the Snapshot, apply the rules, render. Errors go to `err`
/// as one line (or as a JSON object with --json) and give ExitStatus::usage.
ExitStatus run_check(const CheckOptions& options, std::ostream& out, std::ostream& err);

}  // namespace cudoctor::commands
