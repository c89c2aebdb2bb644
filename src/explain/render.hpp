#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "explain/explain.hpp"

namespace cudoctor::explain {

/// What the causes were checked against, for the report's header.
struct RenderContext {
    std::size_t lines = 0;
    std::size_t bytes = 0;
    std::string machine;  ///< "this machine", "snapshot a.json", "root DIR", or "" (not checked)
};

/// The causes as text: root first, each with its matched lines, meaning, the machine's facts
/// (✓ confirms, ✗ contradicts, · context) and the fix. With no cause, one plain sentence.
void render_text(const std::vector<Cause>& causes, const RenderContext& ctx, std::ostream& out);
/// The answer in one line (-q): the root cause first in the order render_text() lists them,
/// "cuda-no-kernel-image: no kernel image … [high] (and 1 more cause)", or "No known CUDA error
/// found in 12 lines".
std::string verdict_line(const std::vector<Cause>& causes, const RenderContext& ctx);
/// {"causes": [{"id", "alias", "confidence", "matched_lines": [{"line", "text"}], "title", "explanation",
/// "fix": [...], "evidence": [{"verdict", "fact"}], "rules": {"confirm": [...], "contradict": [...]},
/// "consequence_of", "values", "match_count"}], "lines", "bytes", "machine"}. "alias" is the cause's
/// old id where the id registry renamed it (null otherwise), kept for one release. Invalid UTF-8
/// never reaches it (lines are made printable).
void render_json(const std::vector<Cause>& causes, const RenderContext& ctx, std::ostream& out);

}  // namespace cudoctor::explain
