#pragma once
// The machine as it will look after the plan: the snapshot with the plan's driver, gcc, toolkit,
// cuDNN and framework put in, the way the probes would see them. `cudoctor plan` runs check's
// rules on it, so a plan that check would fault is caught before anyone follows it.
#include "kb/kb.hpp"
#include "recipe/recipe.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::recipe {

/// `before` changed by every step of `plan` (nothing for a refused plan). Kept layers stay as
/// they are; a driver step replaces the loaded module and libraries (nouveau unloaded); a toolkit
/// step adds the toolkit as /usr/local/cuda's target and first nvcc on PATH; a gcc step makes
/// gcc-N the default; cuDNN and framework steps add them where the commands put them.
snapshot::Snapshot projected_snapshot(const snapshot::Snapshot& before, const Recipe& plan, const kb::Kb& kb);

}  // namespace cudoctor::recipe
