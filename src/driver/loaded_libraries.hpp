#pragma once
// Which CUDA libraries an interpreter really mapped (from its /proc/self/maps), and where each
// came from: a pip wheel, conda, the framework's own folder, a toolkit, or the system.
#include <string>
#include <string_view>
#include <vector>

namespace cudoctor::driver {

struct LoadedLibrary {
    std::string path;    ///< as mapped: "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9"
    std::string kind;    ///< "libcudart", "libcublas", "libcublasLt", "libcudnn", "libcuda", "libnvrtc", "libnccl", … or "framework"
    std::string origin;  ///< "pip wheel" | "conda" | "bundled with <framework>" | "toolkit" | "system" | "other"
};

/// Where a library file comes from, judged by its path.
std::string library_origin(std::string_view path, std::string_view framework);

/// The CUDA libraries among `mapped` (and the framework's own core libraries, so a CPU build
/// still shows what it loaded), each once, in the order given.
std::vector<LoadedLibrary> classify_loaded(const std::vector<std::string>& mapped, std::string_view framework);

}  // namespace cudoctor::driver
