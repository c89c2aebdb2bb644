#pragma once
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "common/version.hpp"

/// Readers of the files and command output that name a CUDA toolkit's version. Text in, value
/// out; no I/O.
namespace cudoctor::formats {

/// The versions a toolkit's version.json names; "" where the key is absent or not a string.
struct CudaVersionJson {
    std::string cuda;    ///< "cuda" (sometimes date-stamped: "12.6.20241114"; trust major.minor)
    std::string cudart;  ///< "cuda_cudart"
    std::string nvcc;    ///< "cuda_nvcc"
    std::string driver;  ///< "nvidia_driver" (runfile bundles only)
};

/// A toolkit's version.json (CUDA >= 11.1):
/// `{"cuda":{"name":"CUDA SDK","version":"12.4.1"},"cuda_cudart":{...,"version":"12.4.127"},...}`.
/// Any key may be missing or of another type (its field stays ""). Errc::parse when the text is
/// not JSON ("not valid JSON: " and the parser's message) or not a JSON object.
Expected<CudaVersionJson> parse_cuda_version_json(std::string_view text);

/// A toolkit's version.txt (CUDA <= 11.0): "CUDA Version 10.0.130" → 10.0.130. Errc::parse when
/// no "CUDA Version X.Y" is there.
Expected<Version> parse_cuda_version_txt(std::string_view text);

/// The output of `nvcc --version`: "Cuda compilation tools, release 13.0, V13.0.88" → 13.0.88;
/// without the ", V..." part, "release X.Y" → X.Y. Errc::parse when there is no "release X.Y".
Expected<Version> parse_nvcc_version_output(std::string_view text);

}  // namespace cudoctor::formats
