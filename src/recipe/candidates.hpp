#pragma once
// The reverse derivation's first half: the CUDA variants a request can use (a framework's wheels,
// a TensorFlow tested build, a JAX extra, or plain toolkits), each checked against the GPU (the
// lowest and highest CUDA that can target it) and the driver branches its architecture has.
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "kb/kb.hpp"
#include "recipe/build_targets.hpp"
#include "recipe/recipe.hpp"

namespace cudoctor::recipe::detail {

/// One way to satisfy the request.
struct Candidate {
    std::string framework;  ///< "torch" | "tensorflow" | "jax" | "" (a toolkit alone)
    Version release;        ///< the framework release series (2.4), or the CUDA minor
    std::string variant;    ///< "cu121" | "and-cuda" | "cuda12" | "" (plain toolkit)
    std::string label;      ///< how the user reads it: "torch 2.4 (cu121)", "CUDA 12.4"
    Version cuda;           ///< 12.1 (12 where only the major is known)
    bool experimental = false;
    std::optional<Version> bundled_cudnn;  ///< cuDNN its wheels bring
    std::optional<Version> tested_cudnn;   ///< the cuDNN a system install must match (TensorFlow)
    std::optional<Version> min_driver;     ///< what the CUDA of this candidate needs
    bool system_toolkit = false;           ///< it loads the system's CUDA (TensorFlow < 2.14, a plain toolkit)
    bool system_cudnn = false;             ///< it loads the system's cuDNN
    std::optional<std::string> rejected;   ///< why it cannot work here (hard)
    bool other_cuda = false;               ///< rejected only because it is not the CUDA asked for (--cuda)
    Fit gpu_fit = Fit::unknown;            ///< a torch wheel: runs (its list proves it) or unknown (no list)
    std::vector<std::string> warnings;     ///< works, with a caveat
};

/// Every candidate for the request on this target, hard rejections filled in. Errc::usage when
/// the framework release (or --cuda) is unknown to the KB.
[[nodiscard]] Expected<std::vector<Candidate>> candidates_for(const Request& request, const Target& target, const kb::Kb& kb);

/// Whether the candidate is of the CUDA asked for with --cuda (12.6 matches 12.6 and 12; any when none was asked).
bool is_cuda_asked(const Candidate& c, const Request& request);

/// Why CUDA `cuda` cannot target compute capability `cc` ("" when it can or the range is unknown).
std::string gpu_reason(const Version& cuda, const std::string& cc, const std::string& architecture, const kb::Kb& kb);

/// The nearest release (or CUDA minor) to the request that would work on this GPU: "torch 2.7 (cu128)";
/// "" when nothing in the KB fits.
std::string nearest_working(const Request& request, const Target& target, const kb::Kb& kb);

/// The newest update of CUDA `cuda` (X.Y) with a known minimum driver, preferring one the
/// installed driver already runs: 12.4 + driver 550.54.14 → 12.4.0, + 550.54.15 → 12.4.1.
std::optional<kb::ToolkitRelease> toolkit_update(const Version& cuda, const std::optional<Version>& driver, const kb::Kb& kb);

/// "sm_89" from "8.9".
std::string sm_name(const std::string& cc);

}  // namespace cudoctor::recipe::detail
