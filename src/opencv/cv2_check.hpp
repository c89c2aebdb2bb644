#pragma once
// `cudoctor opencv check`: an installed cv2 asked in a child interpreter (its version, file,
// cv2.getBuildInformation(), cv2.cuda.getCudaEnabledDeviceCount() and the OpenCV libraries it
// loaded), the build information judged like a configure log, and the GPU code in those
// libraries read by the arch room against this machine's GPUs.
#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "gpucode/report.hpp"
#include "host/host.hpp"
#include "opencv/log_report.hpp"

namespace cudoctor::opencv {

/// What the child interpreter printed (one JSON object).
struct Cv2Answer {
    std::string import_error;            ///< "ModuleNotFoundError: No module named 'cv2'"; "" when cv2 imported
    std::string version;                 ///< cv2.__version__
    std::string module_file;             ///< cv2.__file__
    std::string build_information;       ///< cv2.getBuildInformation()
    std::optional<int> cuda_devices;     ///< cv2.cuda.getCudaEnabledDeviceCount()
    std::string cuda_error;              ///< why that call failed ("AttributeError: …" when cv2 has no cuda module)
    std::vector<std::string> libraries;  ///< OpenCV libraries mapped in the child (from /proc/self/maps)
};

/// The Python program the child runs (prints one JSON object on stdout, exit 0 even when cv2
/// does not import).
const char* cv2_probe_script();

/// Parses the child's stdout. Errc::parse (with the first bytes made printable) when it is not
/// one JSON object of the expected shape: a python that is not Python, a sitecustomize that
/// prints, a truncated answer.
Expected<Cv2Answer> parse_cv2_answer(std::string_view out);

struct Cv2Check {
    std::string python;
    Cv2Answer answer;
    LogReport build;           ///< the build information judged (build_information mode)
    gpucode::ArchReport arch;  ///< the scanned libraries with GPU code, against the GPUs
    /// Problems: cv2 missing, no CUDA in the build, no usable device while GPUs exist, a
    /// library that cannot run on a GPU.
    bool problems() const;
};

/// Runs `python -c <script>` through the Host with `timeout`, then judges. Errc::not_found when
/// the interpreter does not exist, Errc::timeout when it hangs (killed), Errc::io when it exits
/// non-zero (its stderr's last line in the message), Errc::parse for garbage output.
/// `gpus` empty: the GPU verdicts are left out (arch report notes it).
Expected<Cv2Check> check_cv2(const host::Host& host, const kb::Kb& kb, const std::string& python, std::chrono::milliseconds timeout,
                             const std::vector<gpucode::TargetGpu>& gpus, const std::optional<Version>& driver_max_cuda);

void render_text(const Cv2Check& check, std::ostream& out);
/// The check in one line (-q): "✗ cv2 of /usr/bin/python3: OpenCV 4.6.0, built without CUDA,
/// 0 CUDA devices", or why cv2 did not import.
std::string verdict_line(const Cv2Check& check);
nlohmann::json to_json(const Cv2Check& check);

}  // namespace cudoctor::opencv
