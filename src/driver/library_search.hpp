#pragma once
// Where verify looks for the driver libraries it loads (in isolated children only).
//
// CUDOCTOR_DRIVER_LIBRARY_PATH — a ':'-separated list of folders (machine paths, so under
// --root they are inside the image) searched first for libcuda.so.1, libnvidia-ml.so.1 and
// libcudnn.so.N. It is the user's escape hatch (a driver in a non-standard place) and the test
// seam (stand-in libraries), and the report says when it is active. Without it, on the real
// machine the bare SONAME is loaded, so the system loader picks exactly the file every CUDA
// program gets; on a machine image the copies `check` found inside the image are tried.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/host.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::driver {

inline constexpr std::string_view kLibraryPathOverride = "CUDOCTOR_DRIVER_LIBRARY_PATH";

/// "CUDOCTOR_DRIVER_LIBRARY_PATH=…" when the override is set and non-empty, else nullopt.
std::optional<std::string> active_override(const host::Host& host);

/// What to dlopen, in order, for `soname` ("libcuda.so.1", "libnvidia-ml.so.1"): the file in
/// each override folder (as this computer's path), then the bare SONAME (real machine) or, on a
/// rooted host, `image_copies`: the image's copies of that library (machine paths).
std::vector<std::string> driver_library_candidates(const host::Host& host, std::string_view soname,
                                                   const std::vector<std::string>& image_copies = {});
/// The copies of the driver library `stem` ("libcuda.so") that `check` found in the image
/// (`snap.driver.libraries`), as machine paths.
std::vector<std::string> image_copies(const snapshot::Snapshot& snap, std::string_view stem);

/// One cuDNN library to check: the file to load and where it was found.
struct CudnnCandidate {
    std::string file;   ///< this computer's path, or a bare SONAME
    std::string label;  ///< "override", or the Snapshot copy's location and folder
};

/// The cuDNN libraries to check: libcudnn.so.9 / .8 in the override folders when the override
/// is set (and then only those), else every copy `check` found that has a libcudnn.so.N file
/// (at most four).
std::vector<CudnnCandidate> cudnn_candidates(const host::Host& host, const snapshot::Snapshot& snap);

}  // namespace cudoctor::driver
