#pragma once
#include <ostream>
#include <string>

#include "snapshot/snapshot.hpp"

namespace cudoctor::report {

struct TextOptions {
    bool color = false;    ///< ANSI colours (the command decides: a terminal and no NO_COLOR)
    bool verbose = false;  ///< the evidence of every fact
};

/// The layered report: one tree per layer, ✓ / ! / ✗ marks, notes and findings.
void render_text(const snapshot::Snapshot& snap, const TextOptions& options, std::ostream& out);
/// The same report as Markdown, ready to paste into a GitHub issue.
void render_markdown(const snapshot::Snapshot& snap, std::ostream& out);
/// The verdict in one line, for --quiet: "✗ 2 errors, 1 warning: driver-library-mismatch, …" or
/// "✓ no problems found" (warnings and notes counted, never hidden).
std::string verdict_line(const snapshot::Snapshot& snap);
/// The Snapshot as versioned JSON (lossless; `check --snapshot` reads it back).
void render_json(const snapshot::Snapshot& snap, std::ostream& out);

}  // namespace cudoctor::report
