#pragma once
// Where verify looks for the driver libraries it loads (in isolated children only).
//
// CUDOCTOR_DRIVER_LIBRARY_PATH — a ':'-separated list of folders on this computer (never inside
// a --root image) searched first for libcuda.so.1, libnvidia-ml.so.1 and libcudnn.so.N. It is
// the user's escape hatch (a driver in a non-standard place) and the test seam (stand-in
// libraries), and the report says when it is active. Without it, on the real machine the bare
// SONAME is loaded, so the system loader picks exactly the file every CUDA program gets. A
// machine image is inert: none of its libraries is ever loaded, so on a rooted Host without the
// override there is nothing to load and the callers say "not loaded: inside a machine image".
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/host.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::driver {

inline constexpr std::string_view kLibraryPathOverride = "CUDOCTOR_DRIVER_LIBRARY_PATH";

/// "CUDOCTOR_DRIVER_LIBRARY_PATH=…" when the override is set and non-empty, else nullopt.
std::optional<std::string> active_override();

/// The reason a library of the machine is not loaded ("not loaded: inside a machine image …"),
/// when the Host is rooted and no override names a stand-in; nullopt when loading may go on.
std::optional<std::string> image_is_inert(const host::Host& host);

/// What to dlopen, in order, for `soname` ("libcuda.so.1", "libnvidia-ml.so.1"): the file in
/// each override folder, then, on the real machine only, the bare SONAME. Empty on a rooted Host
/// without the override.
std::vector<std::string> driver_library_candidates(const host::Host& host, std::string_view soname);

/// One cuDNN library to check: the file to load and where it was found.
struct CudnnCandidate {
    std::string file;   ///< this computer's path, or a bare SONAME
    std::string label;  ///< "override", or the Snapshot copy's location and folder
};

/// The cuDNN libraries to check: libcudnn.so.9 / .8 in the override folders when the override
/// is set (and then only those), else, on the real machine, every copy `check` found that has a
/// libcudnn.so.N file (at most four). Empty on a rooted Host without the override.
std::vector<CudnnCandidate> cudnn_candidates(const host::Host& host, const snapshot::Snapshot& snap);

}  // namespace cudoctor::driver
