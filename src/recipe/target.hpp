#pragma once
// The machine a plan is for: this machine's Snapshot (GPU, OS, driver, what is installed), with
// --gpu / --os replacing those facts and --fresh forgetting what is installed.
#include "common/error.hpp"
#include "kb/kb.hpp"
#include "recipe/recipe.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::recipe {

/// Builds the Target. The GPU is --gpu's, else the snapshot's oldest GPU with a known compute
/// capability (the set must fit every GPU). No GPU at all gives a Target with an empty capability
/// and gpu_visible false inside a virtual machine (the plan then says why it cannot help);
/// elsewhere Errc::usage asking for --gpu. A bad --gpu or --os is Errc::usage (request.hpp).
/// --os naming another OS than the snapshot's takes that release's default gcc from the KB; going
/// to or from WSL2 also forgets this machine's driver.
[[nodiscard]] Expected<Target> make_target(const snapshot::Snapshot& snap, const Request& request, const kb::Kb& kb);

}  // namespace cudoctor::recipe
