#pragma once
// The NVRTC path of level 2, for machines with NVRTC but no nvcc (pip wheels bring
// libnvrtc.so.N): compile the kernel to PTX with NVRTC, then — where a driver works — load it
// with cuModuleLoadData and launch it through the driver API, all in one isolated child.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "driver/child_log.hpp"

namespace cudoctor::driver {

struct NvrtcAnswer {
    ChildAnswer child;
    std::vector<std::string> tried;
    std::string library;
    std::vector<std::string> missing;
    std::string nvrtc_version;          ///< "13.0"
    std::optional<int> compile_result;  ///< nvrtcCompileProgram's nvrtcResult
    std::string compile_text;           ///< nvrtcGetErrorString
    std::string log;                    ///< the compile log (errors, warnings)
    std::size_t ptx_bytes = 0;
    // The launch, when asked for.
    std::vector<std::string> driver_tried;
    std::string driver_library;
    std::string failed_call;           ///< the driver call that failed ("" when none)
    std::optional<int> failed_result;  ///< its CUresult
    std::string failed_name;           ///< cuGetErrorName of it
    std::optional<unsigned> threads;   ///< values checked
    std::optional<unsigned> wrong;     ///< how many were wrong
    unsigned first_wrong = 0, first_wrong_value = 0;
};

/// Compiles the kernel with the NVRTC library file `nvrtc` for `arch` ("compute_89"; "" for
/// NVRTC's default) and, when `driver_candidates` is not empty, launches it through the first of
/// them that loads (cuInit, primary context, cuModuleLoadData, cuLaunchKernel over poisoned
/// memory, cuMemcpyDtoH) and checks every value. Errc::io when no child could be started.
Expected<NvrtcAnswer> nvrtc_compile_and_launch(const std::string& nvrtc, const std::string& arch,
                                               const std::vector<std::string>& driver_candidates, std::chrono::milliseconds timeout);

}  // namespace cudoctor::driver
