#pragma once
// How a Plan (and the outcome of applying it) is shown: numbered text for people, JSON for tools.
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "plan/apply.hpp"
#include "plan/plan.hpp"

namespace cudoctor::plan {

/// The lines that differ between two texts, as "- old" / "+ new" lines (a line-level longest
/// common subsequence). Texts past 2000 lines are summarised in one line instead.
std::string line_diff(std::string_view before, std::string_view after);

/// The plan in one line, the first of render_text() and the line -q prints for a dry run:
/// "Plan: switch /usr/local/cuda to 12.4 (2 steps)", "Plan: … — nothing to do".
std::string headline(const Plan& plan);

/// Numbered steps, each with what it changes, the shell form and the undo; edits show their diff;
/// then the warnings and notes. An empty plan says "nothing to do".
void render_text(const Plan& plan, std::ostream& out);
nlohmann::json to_json(const Plan& plan);

/// What apply() did: the preflight problems, or each step's outcome, and the undo left to run.
void render_text(const ApplyResult& result, const Plan& plan, std::ostream& out);
nlohmann::json to_json(const ApplyResult& result);
/// What apply() did in one line (-q with --apply): "Done: … (2 steps applied)", "Nothing was
/// changed: … cannot run as it is (1 problem)", "Stopped at step 2 of …: rolled back, …".
std::string verdict_line(const ApplyResult& result, const Plan& plan);

}  // namespace cudoctor::plan
