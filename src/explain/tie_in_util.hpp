#pragma once
// Helpers shared by the tie-in files (explain room internals).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/version.hpp"
#include "explain/explain.hpp"
#include "host/resources.hpp"

namespace cudoctor::explain::detail {

inline void confirms(Cause& c, std::string text) { c.evidence.push_back({"confirms", std::move(text)}); }
inline void contradicts(Cause& c, std::string text) { c.evidence.push_back({"contradicts", std::move(text)}); }
inline void context(Cause& c, std::string text) { c.evidence.push_back({"context", std::move(text)}); }

/// Replaces the general fix by machine-specific steps (a multi-line command block becomes one
/// step per line).
void set_fix(Cause& c, const std::vector<std::string>& steps);
/// Appends the lines of a multi-line command block as steps.
void add_fix_lines(Cause& c, std::string_view block);

/// The major a library file name carries: "libcudnn.so.9" → 9, "libcudart.so.11.0" → 11,
/// "cudart64_110.dll" → 11 (nullopt when there is none).
std::optional<int> soname_major(std::string_view soname);
/// "11040" (cudaDriverGetVersion) → "11.4".
std::optional<Version> cuda_from_code(std::string_view code);
/// "sm_89", "8.9", "89" → "8.9" ("" when not a capability).
std::string capability_of(std::string_view sm);

// One function per cause; each adds evidence and fixes for this machine (tie_in_*.cpp).
void tie_driver_not_loaded(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_driver_lib_mismatch(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_driver_too_old(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_missing_libcuda(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_wsl(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_missing_library(Cause&, const snapshot::Snapshot&, const kb::Kb&);  // cudart, cudnn, other
void tie_no_kernel_image(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_torch_cuda_unavailable(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_unsupported_gcc(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_nvcc_not_found(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_sudo_secure_path(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_cuda_version_mismatch_build(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_opencv_cuda(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_runtime_context(Cause&, const snapshot::Snapshot&, const kb::Kb&);  // oom, async, runfile, apt
void tie_apt_repo(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_container_runtime(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_dkms(Cause&, const snapshot::Snapshot&, const kb::Kb&);
void tie_runfile_refused(Cause&, const snapshot::Snapshot&, const kb::Kb&);
/// A killed build against this machine's memory and cores: how many parallel jobs fit here.
void tie_build_oom(Cause&, const std::optional<host::BuildResources>& resources);

}  // namespace cudoctor::explain::detail
