#pragma once
// What a framework build can run, decided from what is known of it: its architecture list where
// the knowledge base (or the build itself) has one, else only the CUDA it was built with. `check`'s
// framework-gpu-arch-unsupported and `plan`'s candidates both ask here, so they cannot disagree.
#include <optional>
#include <string>
#include <vector>

#include "common/version.hpp"
#include "kb/kb.hpp"

namespace cudoctor::recipe {

/// The GPU code a build holds, as far as it is known.
struct BuildTargets {
    Version cuda;                         ///< the CUDA it was built with (12.4)
    std::vector<std::string> sass;        ///< compute capabilities with SASS ("8.6"); empty = the list is unknown
    std::optional<std::string> ptx_from;  ///< PTX for this capability (JIT-compiles for it and newer); only with a list
};

/// The build's targets from its pytorch_cuda.tsv row (x86_64 list; empty when the row has none).
[[nodiscard]] BuildTargets torch_targets(const kb::TorchWheel& wheel);

enum class Fit {
    runs,        ///< proven: SASS for the GPU (or a lower minor of its major), or PTX it JIT-compiles
    cannot_run,  ///< proven: no SASS for the GPU, and no PTX that could JIT-compile for it
    needs_ptx,   ///< its CUDA cannot compile SASS for the GPU; it runs only if it ships PTX, which is not known
    unknown,     ///< no list, and its CUDA can compile for the GPU: nothing is proven either way
};

struct GpuFit {
    Fit fit = Fit::unknown;
    /// Why, as a clause that follows the build's name: "carries sm_50 … sm_90 only: none runs on
    /// sm_120", "is built with CUDA 12.4, which cannot target sm_120 (…)". Empty for runs / unknown.
    std::string reason;
};

/// Whether a build with `targets` can run on a GPU of compute capability `cc` ("12.0");
/// `architecture` ("Blackwell") only words the reason. An unparseable capability is unknown.
[[nodiscard]] GpuFit gpu_fit(const BuildTargets& targets, const std::string& cc, const std::string& architecture, const kb::Kb& kb);

/// "sm_50 sm_60 sm_90" (+ " + PTX for compute 9.0 and newer"), for messages.
[[nodiscard]] std::string describe_targets(const BuildTargets& targets);

/// Whether TensorFlow `tensorflow` has the [and-cuda] extra that installs its CUDA and cuDNN as
/// wheels (from 2.14, tensorflow.org/install/pip); before, it loads the system's.
[[nodiscard]] bool tensorflow_has_and_cuda(const Version& tensorflow);

}  // namespace cudoctor::recipe
