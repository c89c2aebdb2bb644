#pragma once
// What an OpenCV configure log (or a cv2 build information) really enabled, judged line by
// line: CUDA, its architectures against the GPUs given, cuDNN, the DNN CUDA backend, the
// Python 3 binding and numpy, the modules skipped, and the errors that stopped CMake. Every
// "skipped" carries its reason and the fix.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/cmake_log.hpp"
#include "gpucode/gpus.hpp"
#include "kb/kb.hpp"

namespace cudoctor::opencv {

enum class Status {
    enabled,  ///< built in
    skipped,  ///< left out, silently: the user most likely wanted it
    failed,   ///< CMake stopped, or the result cannot run on the GPU given
    info,     ///< a fact worth knowing, no fault
};

/// "enabled", "skipped", "failed", "info".
const char* to_string(Status status);

struct Verdict {
    std::string topic;  ///< "CUDA", "GPU architectures", "cuDNN", "DNN CUDA backend", "Python 3", "module cudaarithm", "configure"
    Status status = Status::info;
    std::string summary;  ///< what the log says, one line
    std::string reason;   ///< why it was skipped or failed ("" when enabled)
    std::string fix;      ///< the CMake option or command that fixes it ("" when none)
};

struct LogContext {
    /// The text is cv2.getBuildInformation() of an installed module, not a configure log: the
    /// Python binding is the one running, and no CMake messages are expected.
    bool build_information = false;
    std::vector<gpucode::TargetGpu> gpus;  ///< judge the arch list for these (none: not judged)
    const kb::Kb* kb = nullptr;            ///< for package names in fixes (optional)
};

struct LogReport {
    formats::OpencvBuildLog log;
    std::vector<Verdict> verdicts;
    /// Any verdict skipped or failed.
    bool problems() const;
    /// The log held nothing OpenCV's CMake writes (no summary, no CUDA lines, no CMake errors).
    bool recognized() const;
};

/// Judges a parsed log. Pure: no I/O.
LogReport judge_log(formats::OpencvBuildLog log, const LogContext& context);

/// Why a module lands in "Unavailable" and what brings it back ("" when not known).
struct ModuleHint {
    std::string reason;
    std::string fix;
};
ModuleHint module_hint(std::string_view module);

void render_text(const LogReport& report, std::ostream& out);
/// The report in one line (-q): "✗ OpenCV 4.10.0: 4 enabled, 1 failed (GPU architectures),
/// 1 skipped (cuDNN)".
std::string verdict_line(const LogReport& report);
nlohmann::json to_json(const LogReport& report);
nlohmann::json to_json(const Verdict& verdict);

}  // namespace cudoctor::opencv
