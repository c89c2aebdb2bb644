#pragma once
// Printing a plan: text for people, JSON for tools, and a commented bash script (set -e, reboot
// points marked) that `plan` itself never runs.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "recipe/recipe.hpp"

namespace cudoctor::recipe {

/// What `check` predicts for the machine after the plan (error titles; empty = none).
struct Prediction {
    bool evaluated = false;
    std::vector<std::string> errors;
};

/// The request as one line ("torch==2.4 --need nvcc") for headers.
std::string describe_request(const Request& request);

void render_text(const Recipe& plan, const Request& request, const Prediction& prediction, std::ostream& out);
/// The recipe in one line (-q): "Recipe for torch==2.4: torch 2.4 (cu121), CUDA 12.1, ≥ 530.30.02;
/// 3 steps", "…: nothing to do", or "…: no working set: <why>".
std::string verdict_line(const Recipe& plan, const Request& request, const Prediction& prediction);
nlohmann::json to_json(const Recipe& plan, const Request& request, const Prediction& prediction);
/// A bash script of the steps: `set -euo pipefail`, every command and check in order, comments
/// for the notes, and at each reboot the script stops and says how to continue (rerun with
/// --from-step N+1). A refused plan gives a script that only prints the refusal and exits 1.
void render_script(const Recipe& plan, const Request& request, std::ostream& out);

}  // namespace cudoctor::recipe
