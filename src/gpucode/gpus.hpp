#pragma once
// The GPUs a verdict is given for: this machine's (the GPU probe) or the user's --gpu list.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "gpucode/compatibility.hpp"
#include "kb/kb.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::gpucode {

struct TargetGpu {
    std::string name;  ///< "GeForce RTX 4090", or "compute capability 8.9"
    ComputeCapability cc;
    std::string source;  ///< "--gpu", or the PCI bus id of this machine's GPU
};

/// A --gpu value: a compute capability ("8.9", "sm_89", "120") or a GPU name from the KB's
/// GPU table, matched without case and without the "NVIDIA " prefix: the exact name first
/// ("GeForce RTX 4090"), then names ending in the words given ("RTX 4090"), then names
/// containing them ("4090"). Errc::usage for an unknown name or one that matches GPUs of
/// different compute capabilities (naming them).
Expected<TargetGpu> resolve_gpu(const kb::Kb& kb, std::string_view spec);

/// A probed machine's GPUs (a Snapshot's `gpus`) as targets to judge for: name (else "GPU "
/// and the bus id), compute capability, PCI bus id as the source. A GPU without a known compute
/// capability is left out.
[[nodiscard]] std::vector<TargetGpu> machine_gpus(const std::vector<snapshot::Gpu>& gpus);

}  // namespace cudoctor::gpucode
