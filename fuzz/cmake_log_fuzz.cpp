// libFuzzer target: parse_opencv_build_log on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/cmake_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using cudoctor::formats::OpencvBuildLog;
    const auto log = cudoctor::formats::parse_opencv_build_log(std::string_view(reinterpret_cast<const char*>(data), size));
    // Invariants: every list within its cap, every value within its cut, lines counted.
    if (log.errors.size() > OpencvBuildLog::kMaxItems || log.warnings.size() > OpencvBuildLog::kMaxItems ||
        log.finds.size() > OpencvBuildLog::kMaxItems)
        __builtin_trap();
    if (log.to_be_built.size() > OpencvBuildLog::kMaxModules || log.unavailable.size() > OpencvBuildLog::kMaxModules) __builtin_trap();
    for (const auto& e : log.errors)
        if (e.text.size() > OpencvBuildLog::kMaxValue || e.line == 0 || e.line > log.lines) __builtin_trap();
    if (log.cuda_version.size() > OpencvBuildLog::kMaxValue || log.opencv_version.size() > OpencvBuildLog::kMaxValue) __builtin_trap();
    if (size > 0 && log.lines == 0) __builtin_trap();
    return 0;
}
