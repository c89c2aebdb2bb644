#pragma once
#include <optional>
#include <ostream>
#include <string>

#include "snapshot/snapshot.hpp"

namespace cudoctor::report {

struct TextOptions {
    bool color = false;    ///< ANSI colours (the command decides: a terminal and no NO_COLOR)
    bool verbose = false;  ///< the evidence of every fact
    /// The snapshot file the report was read from (check --snapshot): the heading names the
    /// machine by its host name and the time it was taken, not as "this machine".
    std::optional<std::string> snapshot_file;
};

/// The layered report: one tree per layer, ✓ / ! / ✗ marks, notes and findings.
void render_text(const snapshot::Snapshot& snap, const TextOptions& options, std::ostream& out);
/// The same report as Markdown, ready to paste into a GitHub issue (`snapshot_file` as in
/// TextOptions).
void render_markdown(const snapshot::Snapshot& snap, std::ostream& out, const std::optional<std::string>& snapshot_file = std::nullopt);
/// Which machine a report is about: "this machine", the --root folder, or for a saved snapshot
/// "node07 (snapshot taken 2026-11-30T10:00:00Z, read from node07.json)" ("unknown host" and
/// "at an unknown time" where the snapshot does not say).
std::string machine_heading(const snapshot::Snapshot& snap, const std::optional<std::string>& snapshot_file);
/// Why this machine can run nothing on a GPU, where its facts prove it: "no NVIDIA GPU" (none on
/// the PCI bus, no WSL2 GPU device, no nvidia module loaded) or "no NVIDIA driver loaded" (a GPU
/// but no nvidia kernel module, outside WSL2); "" when it can, and when the facts do not say (an
/// unreadable PCI bus or driver file, unknown kernel modules).
std::string cannot_run_reason(const snapshot::Snapshot& snap);
/// check's verdict on such a machine: "this machine can compile CUDA code but run nothing on a
/// GPU: no NVIDIA GPU" ("can compile" only where a toolkit has nvcc); "" when cannot_run_reason is.
std::string cannot_run_verdict(const snapshot::Snapshot& snap);
/// The verdict in one line, for --quiet: "✗ 2 errors, 1 warning: driver-library-mismatch, …" or
/// "✓ no problems found" (warnings and notes counted, never hidden); a machine that can run
/// nothing on a GPU is said first: "✗ this machine … : no NVIDIA GPU — 1 error: …".
std::string verdict_line(const snapshot::Snapshot& snap);
/// The Snapshot as versioned JSON (lossless; `check --snapshot` reads it back).
void render_json(const snapshot::Snapshot& snap, std::ostream& out);

}  // namespace cudoctor::report
