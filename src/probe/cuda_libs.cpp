#include "probe/cuda_libs.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace cudoctor::probe {

bool is_cuda_library(std::string_view name) {
    // string_views, not C strings: a machine's loader cache names a thousand libraries, and a
    // strlen per prefix per name was most of this test's cost.
    static constexpr std::array<std::string_view, 18> kPrefixes = {
        "libcuda.so",  "libcudart.so",  "libcudnn",   "libcublas",        "libcufft",   "libcurand.so",
        "libcusolver", "libcusparse",   "libnvrtc",   "libnvJitLink",     "libnccl.so", "libnvidia-ml.so",
        "libcupti.so", "libnvToolsExt", "libnvinfer", "libnvptxcompiler", "libcufile",  "libnpp",
    };
    static_assert(
        std::all_of(kPrefixes.begin(), kPrefixes.end(), [](std::string_view p) { return p.starts_with("libc") || p.starts_with("libn"); }));
    // Every prefix is "libc…" or "libn…".
    if (name.size() < 4 || !name.starts_with("lib") || (name[3] != 'c' && name[3] != 'n')) return false;
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
