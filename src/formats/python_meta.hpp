#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// Readers of the files that say which Python framework is installed and what it was built
/// against, read as text (Python is never run). No I/O.
namespace cudoctor::formats {

/// torch/version.py.
struct TorchVersionPy {
    std::string version;              ///< "2.4.0+cu121", "1.13.0a0", "2.7.1-700"
    std::optional<std::string> cuda;  ///< "12.1"; nullopt for `cuda = None` (a CPU or ROCm build)
    std::optional<std::string> hip;   ///< the ROCm version of a ROCm build
    std::string git_version;          ///< "" when absent
};

/// torch/version.py of every generation: `__version__ = '2.4.0+cu121'`,
/// `cuda: Optional[str] = '12.1'` / `cuda = None` / `cuda = '10.2'`, `hip: Optional[str] = None`,
/// single or double quotes. cuda and hip are nullopt when None, absent or not a string literal.
/// Errc::parse when there is no `__version__ = '...'`.
Expected<TorchVersionPy> parse_torch_version_py(std::string_view text);

/// tensorflow/python/platform/build_info.py.
struct TfBuildInfo {
    std::string cuda_version;   ///< "12.1"; "" for a CPU build
    std::string cudnn_version;  ///< "8"; "" for a CPU build
    std::optional<bool> is_cuda_build;
    std::vector<std::string> cuda_compute_capabilities;  ///< {"sm_52", ..., "compute_90"}
};

/// build_info.py of the three generations: module variables (TF <= 2.2,
/// `cuda_version_number = '10.1'`, `is_cuda_build = True`), a dict (TF 2.3-2.4,
/// `build_info = {'cuda_version': '64_101', ...}`) and an OrderedDict (TF >= 2.5,
/// `collections.OrderedDict([('cuda_version', '12.1'), ('is_cuda_build', True), ...])`).
/// Windows DLL suffixes are turned into versions: cuda '64_101' → "10.1", cudnn '64_7' → "7".
/// Errc::parse when none of cuda_version, cudnn_version, is_cuda_build and
/// cuda_compute_capabilities is there.
Expected<TfBuildInfo> parse_tf_build_info(std::string_view text);

/// The header of a dist-info METADATA file.
struct DistMetadata {
    std::string name;                        ///< "torch", as written (not normalised)
    std::string version;                     ///< "" when absent
    std::vector<std::string> requires_dist;  ///< each "Requires-Dist:" value, in order
};

/// A dist-info METADATA (email-header style: "Name: torch", "Version: 2.4.0",
/// "Requires-Dist: nvidia-cudnn-cu12 (==9.1.0.70) ; platform_system == \"Linux\""). Header names
/// match case-insensitively; reading stops at the first blank line (the description body);
/// folded continuation lines and lines that are not headers are skipped. The first Name and
/// Version win. Errc::parse when there is no Name.
Expected<DistMetadata> parse_dist_metadata(std::string_view text);

/// The string of the first top-level `NAME = "x"` / `NAME: str = 'x'` assignment whose value
/// is a string literal (jax/version.py `_version = "0.4.30"`, jaxlib/version.py,
/// jax_plugins/*/version.py). Indented lines do not count. nullopt when there is none.
std::optional<std::string> find_python_string_assignment(std::string_view text, std::string_view name);

/// pyvenv.cfg: every line with a '=' as key → value, both trimmed, keys lower-cased, the last
/// of a repeated key winning (as CPython's site.py reads it): home, version / version_info,
/// include-system-site-packages, executable, command. Other lines are skipped; never fails.
std::map<std::string, std::string> parse_pyvenv_cfg(std::string_view text);

}  // namespace cudoctor::formats
