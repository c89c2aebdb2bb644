#pragma once
// CUDA_VISIBLE_DEVICES: a value that hides every GPU (empty, -1, a word that is neither an index
// nor a GPU UUID) makes cuInit answer CUDA_ERROR_NO_DEVICE on a perfectly healthy machine.
#include <optional>
#include <string>
#include <vector>

#include "verify/report.hpp"

namespace cudoctor::verify {

struct VisibleDevices {
    bool set = false;
    std::string value;
    std::vector<std::string> entries;  ///< the entries CUDA uses (up to the first invalid one)
    bool hides_all = false;            ///< no entry is usable: CUDA sees no GPU
    std::string problem;               ///< what is wrong with the value ("" when nothing)
};

/// Reads the value as the driver does: comma-separated GPU indices (0, 1, …) or UUIDs
/// (GPU-…, MIG-…); the list ends at the first entry that is neither. nullopt = unset.
VisibleDevices check_visible_devices(const std::optional<std::string>& value);

/// The level-1 step naming it: PASS when unset or valid, FAIL with the fix otherwise.
Step visible_devices_step(const VisibleDevices& visible);

}  // namespace cudoctor::verify
