#pragma once
// Reading what the user typed: --framework torch==2.4, --os wsl-ubuntu-22.04, --gpu "RTX 4060 Ti".
// Pure functions over text and the KB; every bad input is one Errc::usage error line.
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "kb/kb.hpp"
#include "recipe/recipe.hpp"

namespace cudoctor::recipe {

/// "torch==2.4", "torch=2.4", "pytorch==2.4.1", "tensorflow==2.15", "tf==2.15", "jax==0.4.30", or a
/// bare name ("torch": the newest release that fits). Errc::usage naming the accepted forms for an
/// unknown framework or a version that is not dotted numbers.
[[nodiscard]] Expected<FrameworkSpec> parse_framework(std::string_view text);

/// An operating system as the plan needs it.
struct OsSpec {
    std::string id;       ///< os-release ID: "ubuntu", "debian"
    std::string version;  ///< VERSION_ID: "22.04", "12"
    bool wsl = false;
};

/// "ubuntu-22.04", "ubuntu22.04", "debian-12", "wsl-ubuntu-22.04", "wsl" (Ubuntu 22.04 under WSL2).
/// Errc::usage listing the releases distro_releases.tsv knows for anything else.
[[nodiscard]] Expected<OsSpec> parse_os(std::string_view text, const kb::Kb& kb);

/// A GPU as the plan needs it.
struct GpuSpec {
    std::string name;  ///< "GeForce RTX 4060 Ti"; "" when given as a capability
    std::string compute_capability;
    std::string architecture;
    bool datacenter = false;
};

/// "8.9", "sm_89", "12.0" (a compute capability cuda_arch_support.tsv knows) or a model name from
/// gpus.tsv, matched without case and without the "NVIDIA"/"GeForce" words ("RTX 4060 Ti",
/// "gtx 1080 ti", "H100"). An exact name wins over names containing it. Errc::usage for an unknown
/// capability, no match, or several models matching equally (the message lists some).
[[nodiscard]] Expected<GpuSpec> resolve_gpu(std::string_view text, const kb::Kb& kb);

/// "12.1" → "cu121" (PyTorch's wheel variant name).
std::string torch_variant_of(const Version& cuda);

}  // namespace cudoctor::recipe
