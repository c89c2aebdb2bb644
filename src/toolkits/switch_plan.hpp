#pragma once
// The machine-wide default: /usr/local/cuda repointed atomically (through update-alternatives'
// link where the distribution manages it), with what the switch breaks said up front.
#include "common/error.hpp"
#include "host/host.hpp"
#include "plan/plan.hpp"
#include "toolkits/inventory.hpp"

namespace cudoctor::toolkits {

/// The plan that makes `target` the machine's default. Errc::usage when the target is a pip or
/// conda copy (no folder to point at: `cudoctor use` is the way), or when /usr/local/cuda is a
/// real folder (a toolkit installed there: cudoctor will not replace it). An empty plan (with a
/// note) when `target` already is the default. The plan ends with the checks that it took (nvcc
/// through the new link; `cudoctor verify --level 2` where `gpu_usable`) and the command back.
Expected<plan::Plan> plan_switch(const host::Host& host, const Inventory& inv, const Entry& target, bool gpu_usable = false);

/// The ldconfig step that refreshes the loader cache (`ldconfig -r ROOT` on an image).
plan::Step ldconfig_step(std::string why);

}  // namespace cudoctor::toolkits
