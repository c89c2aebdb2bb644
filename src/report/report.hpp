#pragma once
#include <ostream>

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
/// The Snapshot as versioned JSON (lossless; `check --snapshot` reads it back).
void render_json(const snapshot::Snapshot& snap, std::ostream& out);

}  // namespace cudoctor::report
