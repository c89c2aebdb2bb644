#include "probe/cuda_libs.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace cudoctor::probe {

bool is_cuda_library(std::string_view name) {
    static constexpr std::array kPrefixes = {
        "libcuda.so",  "libcudart.so",  "libcudnn",   "libcublas",        "libcufft",   "libcurand.so",
        "libcusolver", "libcusparse",   "libnvrtc",   "libnvJitLink",     "libnccl.so", "libnvidia-ml.so",
        "libcupti.so", "libnvToolsExt", "libnvinfer", "libnvptxcompiler", "libcufile",  "libnpp",
    };
    for (std::string_view p : kPrefixes) {
        if (name.starts_with(p)) return name.find(".so") != std::string_view::npos;
    }
    return false;
}

std::string_view so_version(std::string_view file_name) {
    const auto pos = file_name.find(".so.");
    if (pos == std::string_view::npos) return {};
    return file_name.substr(pos + 4);
}

}  // namespace cudoctor::probe
