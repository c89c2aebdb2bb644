#pragma once
// What a Python package's own build metadata says about CUDA, for `arch torch`: a package
// whose files carry no GPU code may still load kernels from other packages or compile them at
// run time (CuPy does), so "no fatbin" alone proves nothing; torch/version.py's `cuda = None`
// does (a CPU or ROCm build: no CUDA code anywhere, and no way to get any).
#include <optional>
#include <string>
#include <string_view>

#include "host/host.hpp"

namespace cudoctor::gpucode {

struct BuildEvidence {
    bool with_cuda = false;  ///< built with CUDA
    std::string text;        ///< "torch/version.py: cuda = None"
};

/// The build metadata of `package` in the site-packages folder `site`: torch/version.py's
/// `cuda` (and `hip` for a ROCm build). nullopt for other packages and for a version.py that is
/// absent or unreadable (then nothing is known).
[[nodiscard]] std::optional<BuildEvidence> package_build_evidence(const host::Host& host, std::string_view site, std::string_view package);

}  // namespace cudoctor::gpucode
