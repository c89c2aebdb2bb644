#include "probe/cuda_libs.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
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

std::vector<std::string> find_library_names(std::string_view bytes, const std::vector<std::string_view>& stems) {
    auto name_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-'; };
    auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
    constexpr std::string_view kSo = ".so.";
    std::vector<std::pair<std::size_t, std::string>> found;  // (first offset, name)
    const char* const data = bytes.data();
    std::size_t pos = 0;
    while (pos < bytes.size()) {
        const void* hit = std::memchr(data + pos, '.', bytes.size() - pos);
        if (!hit) break;
        const auto dot = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
        pos = dot + 1;
        if (bytes.substr(dot, kSo.size()) != kSo) continue;
        // Every "<stem>.so." has its ".so." here; the checks are library_names_in()'s.
        for (const auto stem : stems) {
            if (stem.size() > dot) continue;
            const std::size_t at = dot - stem.size();
            if (bytes.substr(at, stem.size()) != stem) continue;
            if (at > 0 && name_char(bytes[at - 1])) continue;  // "xlibcublas.so.1": another name
            const std::size_t digits = dot + kSo.size();
            std::size_t end = digits;
            while (end < bytes.size() && end - digits < 4 && digit(bytes[end])) ++end;
            if (end == digits) continue;  // "libcublas.so." with no major
            std::string name(bytes.substr(at, end - at));
            bool seen = false;
            for (const auto& f : found) seen = seen || f.second == name;
            if (!seen) found.emplace_back(at, std::move(name));
        }
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    out.reserve(found.size());
    for (auto& f : found) out.push_back(std::move(f.second));
    return out;
}

}  // namespace cudoctor::probe
