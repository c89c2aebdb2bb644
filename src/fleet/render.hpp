#pragma once
// The fleet report as text (terminal), Markdown (an issue or a wiki page) and JSON (scripts).
// Text and Markdown group nodes that differ in the same way ("gpu[07-08]: driver 555.42.02
// instead of 550.54.14"), so ten thousand nodes read in a screen; JSON lists every node.
#include <cstddef>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "fleet/analysis.hpp"

namespace cudoctor::fleet {

struct RenderOptions {
    /// Longest node list printed on one line of text/Markdown before "… and N more".
    std::size_t max_list_chars = 240;
};

void render_text(const FleetReport& report, const RenderOptions& options, std::ostream& out);
/// The report in one line (-q): the first line of render_text(), and how many rules of error and
/// warning severity fire anywhere: "cudoctor fleet: 12 nodes, 1 stale; 2 differ from the majority;
/// findings: 1 error rule, 0 warning rules".
std::string verdict_line(const FleetReport& report);
void render_markdown(const FleetReport& report, const RenderOptions& options, std::ostream& out);
/// Every node, difference, finding group, stale and unreadable file; node lists in full.
nlohmann::json to_json(const FleetReport& report);
/// report::json_text(to_json(report)), byte for byte, written as it goes: no JSON tree of ten
/// thousand nodes is built (fleet --json).
void write_json(const FleetReport& report, std::ostream& out);

/// "7d", "36h", "3d12h", "45m", "90s" for a duration in seconds (largest units, at most two).
std::string format_duration(std::int64_t seconds);

}  // namespace cudoctor::fleet
