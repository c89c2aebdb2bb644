#include "opencv/cv2_check.hpp"

#include <algorithm>
#include <sstream>

#include "common/text.hpp"
#include "gpucode/inputs.hpp"
#include "report/style.hpp"

namespace cudoctor::opencv {
namespace {

constexpr const char* kScript = R"PY(
import json, os, sys
r = {}
try:
    import cv2
except Exception as e:
    r["import_error"] = type(e).__name__ + ": " + str(e)
    print(json.dumps(r))
    sys.exit(0)
r["version"] = str(getattr(cv2, "__version__", ""))
r["file"] = str(getattr(cv2, "__file__", "") or "")
try:
    r["build_information"] = cv2.getBuildInformation()
except Exception as e:
    r["build_information"] = ""
    r["build_information_error"] = type(e).__name__ + ": " + str(e)
try:
    r["cuda_devices"] = int(cv2.cuda.getCudaEnabledDeviceCount())
except AttributeError as e:
    r["cuda_error"] = "AttributeError: " + str(e)
except Exception as e:
    r["cuda_error"] = type(e).__name__ + ": " + str(e)
libs = []
try:
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) < 6:
                continue
            path = parts[5].strip()
            base = os.path.basename(path)
            if (base.startswith("libopencv_") or base.startswith("cv2")) and ".so" in base and path not in libs:
                libs.append(path)
except OSError:
    pass
r["libraries"] = libs
print(json.dumps(r))
)PY";

}  // namespace

const char* cv2_probe_script() { return kScript; }

Expected<Cv2Answer> parse_cv2_answer(std::string_view out) {
    const auto trimmed = text::trim(out);
    // The JSON object is the last line: anything a sitecustomize printed before it is ignored.
    const auto start = trimmed.rfind("\n{");
    const std::string_view json_text = start == std::string_view::npos ? trimmed : trimmed.substr(start + 1);
    auto j = nlohmann::json::parse(json_text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return fail(Errc::parse, "the interpreter did not answer with cv2's facts: \"" + text::printable(trimmed, 120) + "\"");
    Cv2Answer a;
    auto str = [&](const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string(); };
    a.import_error = str("import_error");
    a.version = str("version");
    a.module_file = str("file");
    a.build_information = str("build_information");
    a.cuda_error = str("cuda_error");
    if (j.contains("cuda_devices") && j["cuda_devices"].is_number_integer()) a.cuda_devices = j["cuda_devices"].get<int>();
    if (j.contains("libraries") && j["libraries"].is_array())
        for (const auto& l : j["libraries"])
            if (l.is_string() && a.libraries.size() < 512) a.libraries.push_back(l.get<std::string>());
    if (a.import_error.empty() && a.version.empty() && a.build_information.empty())
        return fail(Errc::parse, "the interpreter's answer lacks cv2's version and build information");
    return a;
}

bool Cv2Check::problems() const {
    if (!answer.import_error.empty()) return true;
    if (!build.log.cuda) return true;
    if (!arch.gpus.empty() && answer.cuda_devices.value_or(0) == 0) return true;
    return arch.any_cannot_run();
}

Expected<Cv2Check> check_cv2(const host::Host& host, const kb::Kb& kb, const std::string& python, std::chrono::milliseconds timeout,
                             const std::vector<gpucode::TargetGpu>& gpus, const std::optional<Version>& driver_max_cuda) {
    auto run = host.run({python, "-c", kScript}, timeout);
    if (!run) {
        if (run.error().code == Errc::timeout)
            return fail(Errc::timeout, python + " did not answer within " + std::to_string(timeout.count() / 1000) + " s (killed)");
        return fail(run.error().code, python + ": " + run.error().message);
    }
    if (run->exit_code != 0) {
        const auto lines = text::lines(run->err);
        const std::string last = lines.empty() ? std::string() : std::string(lines.back());
        return fail(Errc::io, python + " exited with " +
                                  (run->exit_code < 0 ? std::string("a signal") : "status " + std::to_string(run->exit_code)) +
                                  (last.empty() ? "" : ": " + text::printable(last, 160)));
    }
    auto answer = parse_cv2_answer(run->out);
    if (!answer) return fail(answer.error().code, python + ": " + answer.error().message);

    Cv2Check check;
    check.python = python;
    check.answer = std::move(*answer);
    LogContext ctx{true, gpus, &kb};
    check.build = judge_log(formats::parse_opencv_build_log(check.answer.build_information), ctx);

    check.arch.gpus = gpus;
    check.arch.driver_max_cuda = driver_max_cuda;
    check.arch.depth = gpucode::ScanDepth::registered;
    if (gpus.empty()) check.arch.note = "No NVIDIA GPU found on this machine: give --gpu 8.9 for a verdict on the libraries' GPU code.";
    if (check.build.log.cuda && !check.answer.libraries.empty()) {
        const auto expansion = gpucode::expand_inputs(host, check.answer.libraries, {});
        check.arch.errors = expansion.errors;
        gpucode::scan_into(host, expansion.files, check.arch);
    }
    return check;
}

static std::string verdict_words(const Cv2Check& check) {
    const auto& a = check.answer;
    std::string s = (check.problems() ? "✗ cv2 of " : "✓ cv2 of ") + check.python + ": ";
    if (!a.import_error.empty()) return s + "import cv2 failed: " + a.import_error;
    s += "OpenCV " + a.version + (check.build.log.cuda ? ", built with CUDA" : ", built without CUDA");
    if (a.cuda_devices) s += ", " + std::to_string(*a.cuda_devices) + (*a.cuda_devices == 1 ? " CUDA device" : " CUDA devices");
    else s += ", cv2.cuda unusable";
    if (check.arch.any_cannot_run()) s += ", GPU code that cannot run on a GPU given";
    return s;
}

std::string verdict_line(const Cv2Check& check) {
    // Names, versions and messages from the machine or a log: the one escape for the terminal.
    return report::outside_text(verdict_words(check), report::Medium::terminal);
}

namespace {

void write_cv2_text(const Cv2Check& check, std::ostream& out) {
    const auto& a = check.answer;
    out << "cv2 of " << check.python << "\n";
    if (!a.import_error.empty()) {
        out << "  ✗ import cv2 failed: " << a.import_error << "\n";
        return;
    }
    out << "  OpenCV " << a.version << " at " << a.module_file << "\n";
    if (a.cuda_devices)
        out << "  " << (*a.cuda_devices > 0 ? "✓" : "✗") << " cv2.cuda.getCudaEnabledDeviceCount() = " << *a.cuda_devices
            << (*a.cuda_devices == 0
                    ? (check.build.log.cuda
                           ? " (built with CUDA, but no usable GPU: driver, CUDA_VISIBLE_DEVICES, or a driver older than the CUDA it was built with)"
                           : " (built without CUDA)")
                    : "")
            << "\n";
    else out << "  ✗ cv2.cuda unusable: " << a.cuda_error << "\n";
    out << "\nBuild information:\n";
    render_text(check.build, out);
    if (check.build.log.cuda) {
        out << "\nGPU code in its libraries:\n";
        if (a.libraries.empty()) out << "  (the child reported no OpenCV libraries mapped)\n";
        else gpucode::render_text(check.arch, out);
    }
}

}  // namespace

void render_text(const Cv2Check& check, std::ostream& out) {
    // The import error, module path and library names come from the Python child, and the view's
    // own words hold no control byte: the finished view goes through the one escape, line by line.
    std::ostringstream text;
    write_cv2_text(check, text);
    out << report::outside_lines(text.str());
}

nlohmann::json to_json(const Cv2Check& check) {
    const auto& a = check.answer;
    nlohmann::json j{{"python", check.python},
                     {"import_error", a.import_error},
                     {"version", a.version},
                     {"file", a.module_file},
                     {"cuda_devices", a.cuda_devices ? nlohmann::json(*a.cuda_devices) : nlohmann::json(nullptr)},
                     {"cuda_error", a.cuda_error},
                     {"libraries", a.libraries},
                     {"problems", check.problems()}};
    if (a.import_error.empty()) {
        j["build"] = to_json(check.build);
        if (check.build.log.cuda) j["arch"] = gpucode::to_json(check.arch);
    }
    return j;
}

}  // namespace cudoctor::opencv
