#pragma once
// The reverse derivation: framework → the CUDA variants it is built for → the driver they need →
// the host gcc and cuDNN that go with them, fitted to the GPU and the OS, keeping what works.
#include "common/error.hpp"
#include "kb/kb.hpp"
#include "recipe/recipe.hpp"

namespace cudoctor::recipe {

/// The plan for `request` on `target`. When nothing fits, the Recipe has `refused` set (the reason
/// and the nearest release that would work) and no steps. Errc::usage when the framework release
/// or the CUDA version is unknown to the KB. Pure: nothing is run or changed.
[[nodiscard]] Expected<Recipe> derive_plan(const Request& request, const Target& target, const kb::Kb& kb);

}  // namespace cudoctor::recipe
