#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// An OpenCV CMake configure log (`cmake … 2>&1 | tee cmake_config.log`) or the text of
/// cv2.getBuildInformation(): the "General configuration for OpenCV" summary block (same format
/// in both) and the messages CMake printed before it.
namespace cudoctor::formats {

/// "Python 2:" / "Python 3:" block of the summary.
struct OpencvPythonBlock {
    std::string interpreter;       ///< "/usr/bin/python3 (ver 3.10.12)"; "NO" when not found
    std::string libraries;         ///< "/usr/lib/x86_64-linux-gnu/libpython3.10.so (ver 3.10.12)" or "NO"
    std::string numpy;             ///< "/usr/lib/python3/dist-packages/numpy/core/include (ver 1.21.5)",
                                   ///< or "NO (Python3 wrappers can not be generated)"
    std::string install_path;      ///< "install path:" / "packages path:"; "-" when not built
    bool numpy_found() const;      ///< numpy is a path, not "NO…" or empty
    bool libraries_found() const;  ///< libraries is a path, not "NO" or empty
};

/// One "CMake Error at FILE:LINE (cmd):" / "CMake Warning …" with its indented message lines
/// joined by single spaces.
struct CmakeMessage {
    std::string where;     ///< "modules/dnn/CMakeLists.txt:66 (message)"; "" for "CMake Error: …"
    std::string text;      ///< "DNN: CUDA backend requires cuDNN. Please resolve dependency …"
    std::size_t line = 0;  ///< 1-based line of the log where it starts
};

/// One package search: "-- Found CUDNN: /usr/lib/… (found version …)" or
/// "-- Could NOT find CUDNN (missing: CUDNN_LIBRARY) …".
struct CmakeFind {
    std::string package;  ///< "CUDNN", "PythonLibs"
    bool found = false;
    std::string detail;  ///< the rest of the line
};

struct OpencvBuildLog {
    bool has_summary = false;                ///< the "General configuration for OpenCV" line was seen
    std::string opencv_version;              ///< "4.6.0", "4.8.0-dev"
    bool has_cuda_line = false;              ///< an "NVIDIA CUDA:" (or 3.x "Use Cuda:") line was seen
    bool cuda = false;                       ///< that line says YES
    std::string cuda_version;                ///< "12.0" from "YES (ver 12.0, CUFFT CUBLAS FAST_MATH)"
    std::vector<std::string> cuda_features;  ///< CUFFT CUBLAS FAST_MATH NVCUVID …
    bool has_gpu_arch_line = false;          ///< "NVIDIA GPU arch:" seen (its value may be empty)
    std::vector<std::string> gpu_archs;      ///< "86", "35", … as printed
    std::vector<std::string> ptx_archs;
    bool has_cudnn_line = false;
    bool cudnn = false;
    std::string cudnn_version;  ///< "8.8.1"
    std::vector<std::string> to_be_built;
    std::vector<std::string> disabled;
    std::vector<std::string> disabled_by_dependency;
    std::vector<std::string> unavailable;
    std::optional<OpencvPythonBlock> python2;
    std::optional<OpencvPythonBlock> python3;
    std::string python_for_build;  ///< "Python (for build):" value; "NO" possible
    std::string cxx_compiler;      ///< "/usr/bin/c++  (ver 12.2.0)"
    std::string install_to;

    // Messages before (and after) the summary.
    std::string cuda_detected;            ///< "12.0" from "CUDA detected: 12.0"
    std::string nvcc_target_flags;        ///< "-gencode;arch=compute_86,code=sm_86;-D_FORCE_INLINES"
    bool cuda_not_detected = false;       ///< "CUDA: Not detected…" (OpenCV 4.9+)
    bool arch_autodetect_failed = false;  ///< "Automatic detection of CUDA generation failed…"
    std::vector<CmakeFind> finds;         ///< Found X / Could NOT find X, in order (at most kMaxItems)
    std::vector<CmakeMessage> errors;     ///< at most kMaxItems
    std::vector<CmakeMessage> warnings;   ///< at most kMaxItems
    bool configuring_incomplete = false;  ///< "Configuring incomplete, errors occurred!"
    bool configuring_done = false;        ///< "Configuring done"

    // The build after the configure (`cmake --build … 2>&1 | tee build.log`).
    bool build_output = false;             ///< progress lines of a build: "[ 45%] Building …", "[12/300] Building …"
    std::string first_error;               ///< the first compiler or linker error ("…: error: …", "nvcc fatal : …")
    std::size_t first_error_line = 0;      ///< its 1-based line; 0 when none
    std::string compiler_killed;           ///< the line saying the kernel killed the compiler (out of memory)
    std::size_t compiler_killed_line = 0;  ///< its 1-based line; 0 when none
    std::string missing_header;            ///< "cudnn.h" from "fatal error: cudnn.h: No such file or directory"
    std::size_t lines = 0;

    static constexpr std::size_t kMaxItems = 64;      ///< per list of messages and finds
    static constexpr std::size_t kMaxModules = 1024;  ///< per module list
    static constexpr std::size_t kMaxValue = 400;     ///< bytes kept of any one value

    /// True when the module list `to_be_built` names `module` ("cudev", "dnn").
    bool builds(std::string_view module) const;
    /// The first Could NOT find / Found record of a package (case-insensitive), or nullptr.
    const CmakeFind* find(std::string_view package) const;
};

/// Parses a configure log or a build-information text. Each line may carry the prefixes CMake
/// and CI systems put in front ("-- ", Docker BuildKit's "#14 23.50 ", a Markdown quote "> ");
/// they are dropped before matching. Summary lines are "key: value" (the value may be empty,
/// or contain further colons: "D:/opencv/build"). Nothing is required: text that is not a
/// configure log gives an empty result (has_summary false, no lists), never an error. Binary
/// junk, NUL bytes and CR/LF are tolerated; every kept value is cut at kMaxValue bytes and every
/// list at its cap, so the result is never larger than the input. Linear in the input.
OpencvBuildLog parse_opencv_build_log(std::string_view text);

}  // namespace cudoctor::formats
