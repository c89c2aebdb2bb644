#pragma once
// The install steps of a plan, one builder per layer, in the order they must run: driver (first
// and clean, then a reboot), gcc (before the toolkit's installer checks it), toolkit (without its
// driver), cuDNN, framework. Each fills exact commands and the checks to run before going on.
#include "kb/kb.hpp"
#include "recipe/candidates.hpp"
#include "recipe/recipe.hpp"

namespace cudoctor::recipe::detail {

struct StepContext {
    const Request& request;
    const Target& target;
    const kb::Kb& kb;
    const Candidate& chosen;
    Recipe& plan;
};

void add_driver_step(StepContext& ctx);
void add_gcc_step(StepContext& ctx);
void add_toolkit_step(StepContext& ctx);
void add_cudnn_step(StepContext& ctx);
void add_framework_step(StepContext& ctx);

}  // namespace cudoctor::recipe::detail
