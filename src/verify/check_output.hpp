#pragma once
// The one-line verdicts of the nvcc-built check program (kernel_source.hpp), parsed.
#include <optional>
#include <string>
#include <string_view>

namespace cudoctor::verify {

struct CheckOutcome {
    enum class Kind { ok, wrong, unavailable, error };
    Kind kind = Kind::error;
    std::string summary;  ///< one line for the report
    std::string what;     ///< error: the call that failed ("cudaMalloc")
    int code = 0;         ///< error: the cudaError_t / CUresult
    std::string name;     ///< error: "cudaErrorInsufficientDriver"
    std::string text;     ///< error: "CUDA driver version is insufficient for CUDA runtime version"
};

/// The last "cudoctor-check: …" line of the program's output; nullopt when there is none or it
/// is garbled (a crash mid-line, another program).
std::optional<CheckOutcome> parse_check_output(std::string_view output);

}  // namespace cudoctor::verify
