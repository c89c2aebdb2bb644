#include "driver/loaded_libraries.hpp"

#include <algorithm>
#include <array>

#include "host/host.hpp"
#include "probe/cuda_libs.hpp"

namespace cudoctor::driver {
namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

/// "libcudnn_ops.so.9" → "libcudnn"; "libcublasLt.so.12" → "libcublasLt".
std::string kind_of(std::string_view name) {
    static constexpr std::array<std::string_view, 14> kKinds = {"libcudart",   "libcublasLt",  "libcublas",    "libcudnn",  "libcuda.",
                                                                "libnvrtc",    "libnccl",      "libcufft",     "libcurand", "libcusparse",
                                                                "libcusolver", "libnvJitLink", "libnvidia-ml", "libcupti"};
    for (auto k : kKinds)
        if (name.starts_with(k)) return std::string(k == "libcuda." ? "libcuda" : k);
    return "other CUDA";
}

bool framework_library(std::string_view name, std::string_view framework) {
    static constexpr std::array<std::string_view, 8> kCore = {"libtorch", "libc10",      "libtensorflow",  "xla_extension",
                                                              "libjax",   "onnxruntime", "libopencv_core", "cupy"};
    (void)framework;
    return std::any_of(kCore.begin(), kCore.end(), [&](auto c) { return name.starts_with(c); });
}

}  // namespace

std::string library_origin(std::string_view path, std::string_view framework) {
    const bool site = contains(path, "/site-packages/") || contains(path, "/dist-packages/");
    if (site && contains(path, "-packages/nvidia/")) return "pip wheel";
    for (auto conda : {"/conda", "/miniconda", "/anaconda", "/miniforge", "/mambaforge", "/micromamba", "/envs/"})
        if (contains(path, conda) && !site) return "conda";
    if (site) {
        const std::string own = "-packages/" + std::string(framework == "jax" ? "jaxlib" : framework) + "/";
        if (!framework.empty() && contains(path, own)) return "bundled with " + std::string(framework);
        return "pip wheel";
    }
    if (path.starts_with("/usr/local/cuda") || path.starts_with("/opt/cuda")) return "toolkit";
    if (path.starts_with("/usr/lib") || path.starts_with("/lib") || path.starts_with("/usr/lib64")) return "system";
    return "other";
}

std::vector<LoadedLibrary> classify_loaded(const std::vector<std::string>& mapped, std::string_view framework) {
    std::vector<LoadedLibrary> out;
    for (const auto& path : mapped) {
        const auto name = host::basename(path);
        const bool cuda = probe::is_cuda_library(name);
        if (!cuda && !framework_library(name, framework)) continue;
        if (std::any_of(out.begin(), out.end(), [&](const auto& l) { return l.path == path; })) continue;
        out.push_back({path, cuda ? kind_of(name) : "framework", library_origin(path, framework)});
    }
    return out;
}

}  // namespace cudoctor::driver
