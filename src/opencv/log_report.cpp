#include "opencv/log_report.hpp"

#include <algorithm>
#include <sstream>

#include "common/text.hpp"
#include "gpucode/compatibility.hpp"
#include "report/style.hpp"

namespace cudoctor::opencv {
namespace {

bool contains(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

/// "86" → 8.6 as a CUDA_ARCH_BIN value; "" when it is no compute capability.
std::string dotted(std::string_view arch) {
    auto cc = gpucode::parse_compute_capability(arch);
    return cc ? cc->str() : std::string();
}

std::string cudnn_install(const LogContext& ctx, const std::string& cuda_version) {
    const auto v = Version::parse(cuda_version);
    // Name a package only where cuDNN 9 is built for that CUDA (there is no libcudnn9-dev-cuda-10).
    const auto newest = ctx.kb && v ? ctx.kb->newest_cudnn_for(*v) : std::nullopt;
    if (newest && newest->major() >= 9)
        if (auto p = ctx.kb->package_name("cudnn9_dev", {{"major", std::to_string(v->major())}}))
            return "sudo apt-get install -y " + *p + " (NVIDIA's CUDA repository)";
    if (newest)
        return "install cuDNN " + newest->str() + " for CUDA " + v->str() +
               " (its headers and library: NVIDIA's cuDNN archive, https://developer.nvidia.com/cudnn-archive)";
    return "install cuDNN's headers and library for this CUDA";
}

std::string gpu_list_cc(const std::vector<gpucode::TargetGpu>& gpus) {
    std::vector<std::string> ccs;
    for (const auto& g : gpus)
        if (!contains(ccs, g.cc.str())) ccs.push_back(g.cc.str());
    return cudoctor::report::join(ccs, ",");
}

/// FindCUDA's "CMake Error at cuda_compile_1_generated_x.cu.o.RELEASE.cmake: Error generating
/// file": a build step's wrapper reporting that nvcc failed, not a configure error.
bool build_step_wrapper(const formats::CmakeMessage& e) {
    return text::contains(e.where, ".cu.o.") || text::starts_with(e.text, "Error generating");
}

void judge_build(const formats::OpencvBuildLog& log, const LogContext& ctx, std::vector<Verdict>& out) {
    const auto at = [](std::size_t line, const std::string& what) { return "line " + std::to_string(line) + ": " + what; };
    if (!log.compiler_killed.empty()) {
        // The root: every error after it follows from the compiler that never finished.
        out.push_back({"build", Status::failed, at(log.compiler_killed_line, log.compiler_killed),
                       "the kernel killed the compiler: the build ran out of memory (an nvcc job of OpenCV can take about 3 GB, "
                       "and -j runs that many at once)",
                       "build again with fewer jobs: cmake --build <build dir> -j N, N from this machine's memory (cudoctor opencv "
                       "cmake prints it); more swap helps too"});
        return;
    }
    if (!log.missing_header.empty() && text::starts_with(log.missing_header, "cudnn")) {
        out.push_back({"build", Status::failed, at(log.first_error_line, log.first_error),
                       log.missing_header + " is not where the compiler looks: cuDNN's headers are missing, or the configure found "
                                            "them somewhere the build does not",
                       cudnn_install(ctx, log.cuda_version.empty() ? log.cuda_detected : log.cuda_version) +
                           "; then configure again in a fresh build folder"});
        return;
    }
    if (!log.first_error.empty() && (log.build_output || !log.missing_header.empty())) {
        out.push_back({"build", Status::failed, at(log.first_error_line, log.first_error),
                       log.missing_header.empty() ? "the first error of the build: the ones after it follow from it"
                                                  : log.missing_header + " was not found when the build compiled",
                       "fix this first error, then build again"});
        return;
    }
    if (log.build_output && !log.has_summary)
        out.push_back({"build", Status::info, "a build log with no compiler error and no killed compiler", "", ""});
}

void judge_errors(const formats::OpencvBuildLog& log, const LogContext& ctx, std::vector<Verdict>& out) {
    for (const auto& e : log.errors) {
        if (build_step_wrapper(e)) continue;  // judge_build names the error it wraps
        Verdict v{"configure", Status::failed, "CMake Error" + (e.where.empty() ? std::string() : " at " + e.where) + ": " + e.text, "", ""};
        if (text::contains(e.text, "requires CC 5.3")) {
            v.reason = "CUDA_ARCH_BIN holds an architecture below 5.3; the DNN CUDA backend cannot run there";
            v.fix = ctx.gpus.empty() ? "-D CUDA_ARCH_BIN=<your GPU's compute capability, 5.3 or higher>"
                                     : "-D CUDA_ARCH_BIN=" + gpu_list_cc(ctx.gpus);
        } else if (text::contains(e.text, "CUDA backend requires cuDNN")) {
            v.reason = "OPENCV_DNN_CUDA=ON but CMake found no cuDNN (headers and library)";
            v.fix = cudnn_install(ctx, log.cuda_version.empty() ? log.cuda_detected : log.cuda_version) +
                    "; or point CMake at it: -D CUDNN_INCLUDE_DIR=<dir of cudnn.h> -D CUDNN_LIBRARY=<libcudnn.so>; or -D OPENCV_DNN_CUDA=OFF";
        } else if (text::contains(e.text, "list GET given empty list") || text::contains(e.where, "OpenCVDetectCUDA")) {
            v.reason =
                "nvcc compiled none of OpenCV's architecture probes: usually the host gcc is newer than this CUDA accepts, or no GPU answered the detection";
            v.fix = "-D CUDA_ARCH_BIN=" + (ctx.gpus.empty() ? std::string("<compute capability>") : gpu_list_cc(ctx.gpus)) +
                    " and -D CUDA_HOST_COMPILER=/usr/bin/g++-<version nvcc accepts> (cudoctor opencv cmake prints both)";
        } else if (text::contains(e.text, "NOTFOUND")) {
            v.reason = "a library CMake needs was not found (the variables named after this message)";
            v.fix = "install the CUDA library packages of this toolkit (cuda-libraries-dev-X-Y) and configure in a fresh build folder";
        } else {
            v.reason = "CMake stopped here";
            v.fix = "fix this error, then configure again in a fresh build folder";
        }
        out.push_back(std::move(v));
    }
    if (log.configuring_incomplete && log.errors.empty())
        out.push_back({"configure", Status::failed, "Configuring incomplete, errors occurred!", "the error lines are not in this log",
                       "save the whole output: cmake … 2>&1 | tee cmake_config.log"});
}

void judge_archs(const formats::OpencvBuildLog& log, const LogContext& ctx, std::vector<Verdict>& out) {
    if (!log.cuda) return;
    std::vector<std::string> bin, ptx;
    for (const auto& a : log.gpu_archs) bin.push_back(dotted(a).empty() ? a : dotted(a));
    for (const auto& a : log.ptx_archs) ptx.push_back(dotted(a).empty() ? a : dotted(a));
    if (log.has_gpu_arch_line && bin.empty() && ptx.empty()) {
        out.push_back({"GPU architectures", Status::failed, "NVIDIA GPU arch is empty: no GPU code would be built",
                       "OpenCV's architecture detection found nothing nvcc could compile",
                       "-D CUDA_ARCH_BIN=" + (ctx.gpus.empty() ? std::string("<compute capability>") : gpu_list_cc(ctx.gpus))});
        return;
    }
    if (!log.has_gpu_arch_line) return;
    const std::string summary = "CUDA_ARCH_BIN " + (bin.empty() ? std::string("(none)") : cudoctor::report::join(bin, " ")) + ", PTX " +
                                (ptx.empty() ? std::string("(none)") : cudoctor::report::join(ptx, " "));
    if (ctx.gpus.empty()) {
        out.push_back({"GPU architectures", Status::info, summary, "", ""});
        return;
    }
    std::vector<gpucode::Image> images;
    for (const auto& a : log.gpu_archs)
        if (auto cc = gpucode::parse_compute_capability(a))
            images.push_back({formats::FatbinKind::sass, static_cast<std::uint32_t>(cc->major * 10 + cc->minor)});
    for (const auto& a : log.ptx_archs)
        if (auto cc = gpucode::parse_compute_capability(a))
            images.push_back({formats::FatbinKind::ptx, static_cast<std::uint32_t>(cc->major * 10 + cc->minor)});
    for (const auto& gpu : ctx.gpus) {
        const auto verdict = gpucode::verdict_for(std::vector<std::vector<gpucode::Image>>{images}, gpu.cc);
        Verdict v{"GPU architectures", Status::enabled,
                  summary + ": " + gpu.name + " (" + gpu.cc.str() + ") " + gpucode::to_string(verdict.mode) +
                      (verdict.via.empty() ? "" : " via " + verdict.via),
                  "", ""};
        if (verdict.mode == gpucode::RunMode::cannot_run) {
            v.status = Status::failed;
            v.reason = "no SASS or PTX for compute capability " + gpu.cc.str() +
                       ": every CUDA call fails with \"no kernel image is available for execution on the device\"";
            v.fix = "-D CUDA_ARCH_BIN=" + gpu.cc.str();
        } else if (verdict.mode == gpucode::RunMode::ptx_jit) {
            v.status = Status::info;
            v.reason = "the driver JIT-compiles PTX at first start (slow start, cached afterwards)";
            v.fix = "-D CUDA_ARCH_BIN=" + gpu.cc.str() + " for native code";
        }
        out.push_back(std::move(v));
    }
}

void judge_cuda(const formats::OpencvBuildLog& log, std::vector<Verdict>& out) {
    const std::string fix = "-D WITH_CUDA=ON -D CUDA_TOOLKIT_ROOT_DIR=/usr/local/cuda-<X.Y> (the folder holding bin/nvcc)";
    if (log.has_cuda_line) {
        if (log.cuda) {
            std::string s = "YES, CUDA " + (log.cuda_version.empty() ? std::string("(version not printed)") : log.cuda_version);
            if (!log.cuda_features.empty()) s += " (" + cudoctor::report::join(log.cuda_features, " ") + ")";
            out.push_back({"CUDA", Status::enabled, s, "", ""});
        } else {
            out.push_back({"CUDA", Status::skipped, "NO",
                           log.cuda_not_detected ? "CMake did not find the CUDA toolkit" : "WITH_CUDA was off or the toolkit was not found",
                           fix});
        }
        return;
    }
    if (log.cuda_not_detected) {
        out.push_back({"CUDA", Status::skipped, "CUDA: Not detected",
                       "CMake found no nvcc (not on PATH, no CUDA_PATH, nothing in /usr/local/cuda)", fix});
    } else if (log.has_summary) {
        std::string reason = "the summary has no NVIDIA CUDA line: built without CUDA";
        if (contains(log.unavailable, "cudev") || contains(log.unavailable, "cudaarithm"))
            reason += " (the cuda* modules are listed as Unavailable)";
        out.push_back(
            {"CUDA", Status::skipped, "not part of this build", reason, fix + " -D OPENCV_EXTRA_MODULES_PATH=<opencv_contrib>/modules"});
    } else if (!log.cuda_detected.empty()) {
        out.push_back({"CUDA", Status::info, "CUDA detected: " + log.cuda_detected + " (the summary is not in this log)", "", ""});
    }
}

void judge_cudnn(const formats::OpencvBuildLog& log, const LogContext& ctx, std::vector<Verdict>& out) {
    if (!log.cuda) return;
    const auto* find = log.find("CUDNN");
    if (log.has_cudnn_line && log.cudnn) {
        out.push_back(
            {"cuDNN", Status::enabled, "YES" + (log.cudnn_version.empty() ? std::string() : ", cuDNN " + log.cudnn_version), "", ""});
        return;
    }
    if (!log.has_cudnn_line && !(find && !find->found)) return;
    std::string reason = find && !find->found ? "Could NOT find CUDNN " + find->detail : "CMake did not find cuDNN's headers and library";
    if (find && !find->found && text::contains(find->detail, "found suitable version"))
        reason +=
            ": cudnn_version.h was read, but the library or include variable stayed empty (a stale CMakeCache.txt, or the library outside CMake's search path)";
    out.push_back({"cuDNN", Status::skipped, "NO", reason,
                   cudnn_install(ctx, log.cuda_version) +
                       "; or -D CUDNN_INCLUDE_DIR=<dir of cudnn.h> -D CUDNN_LIBRARY=<libcudnn.so>; configure in a fresh build folder"});
}

void judge_dnn(const formats::OpencvBuildLog& log, const LogContext& ctx, std::vector<Verdict>& out) {
    if (!log.cuda) return;
    Verdict v{"DNN CUDA backend", Status::enabled, "", "", ""};
    bool low_arch = false;
    for (const auto& a : log.gpu_archs)
        if (auto cc = gpucode::parse_compute_capability(a); cc && *cc < gpucode::ComputeCapability{5, 3}) low_arch = true;
    const bool cublas = log.cuda_features.empty() || contains(log.cuda_features, "CUBLAS");
    if (log.has_cudnn_line && !log.cudnn) {
        v.status = Status::skipped;
        v.summary = "not built: cv2.dnn falls back to the CPU (\"DNN module was not built with CUDA backend; switching to CPU\")";
        v.reason = "needs cuDNN, which was not found";
        v.fix = cudnn_install(ctx, log.cuda_version) + ", then -D WITH_CUDNN=ON -D OPENCV_DNN_CUDA=ON";
    } else if (!cublas) {
        v.status = Status::skipped;
        v.summary = "not built: needs cuBLAS";
        v.reason = "CUBLAS is not among the CUDA features";
        v.fix = "-D WITH_CUBLAS=ON";
    } else if (low_arch) {
        v.status = Status::skipped;
        v.summary = "cannot be built with this arch list";
        v.reason =
            "CUDA_ARCH_BIN holds architectures below 5.3, which the DNN CUDA backend does not support (CMake stops when OPENCV_DNN_CUDA=ON)";
        v.fix = "-D CUDA_ARCH_BIN=" + (ctx.gpus.empty() ? std::string("<5.3 or higher>") : gpu_list_cc(ctx.gpus));
    } else if (log.has_cudnn_line) {
        v.summary = "possible: CUDA, cuBLAS and cuDNN found; on when OPENCV_DNN_CUDA=ON was given";
    } else {
        return;
    }
    if (!log.to_be_built.empty() && !log.builds("dnn")) {
        v.status = Status::skipped;
        v.summary = "the dnn module is not built";
        v.reason = "dnn is not in \"To be built\"";
        v.fix = "-D BUILD_opencv_dnn=ON";
    }
    out.push_back(std::move(v));
}

void judge_python(const formats::OpencvBuildLog& log, std::vector<Verdict>& out) {
    const std::string numpy_fix =
        "python3 -m pip install numpy (or sudo apt-get install -y python3-numpy), then "
        "-D PYTHON3_NUMPY_INCLUDE_DIRS=$(python3 -c 'import numpy; print(numpy.get_include())')";
    if (log.python3) {
        const auto& py = *log.python3;
        if (py.interpreter.empty() && py.libraries.empty() && py.numpy.empty()) return;  // a log cut after the heading
        if (py.interpreter.empty() || py.interpreter.starts_with("NO"))
            out.push_back({"Python 3", Status::skipped, "no interpreter", "CMake found no Python 3 interpreter",
                           "-D PYTHON3_EXECUTABLE=$(command -v python3)"});
        else if (!py.numpy_found())
            out.push_back({"Python 3", Status::skipped, "numpy: " + (py.numpy.empty() ? std::string("not printed") : py.numpy),
                           "numpy's headers were not found: the Python 3 wrappers (cv2) cannot be generated", numpy_fix});
        else if (!py.libraries_found() && !log.builds("python3"))
            out.push_back({"Python 3", Status::skipped, "Libraries: " + (py.libraries.empty() ? std::string("not printed") : py.libraries),
                           "Python.h or libpython of this interpreter was not found", "sudo apt-get install -y python3-dev"});
        else out.push_back({"Python 3", Status::enabled, py.interpreter + ", numpy " + py.numpy, "", ""});
        return;
    }
    if (log.builds("python3")) {
        out.push_back({"Python 3", Status::enabled, "python3 is in \"To be built\"", "", ""});
    } else if (contains(log.disabled, "python3")) {
        out.push_back({"Python 3", Status::skipped, "python3 is Disabled", "turned off by an option", "-D BUILD_opencv_python3=ON"});
    } else if (contains(log.unavailable, "python3")) {
        out.push_back({"Python 3", Status::skipped,
                       "python3 is Unavailable" +
                           (log.python_for_build.empty() ? std::string() : "; only \"Python (for build)\": " + log.python_for_build),
                       "CMake found no complete Python 3 (interpreter, Python.h/libpython, numpy)",
                       "sudo apt-get install -y python3-dev python3-numpy, then -D PYTHON3_EXECUTABLE=$(command -v python3) and " +
                           numpy_fix.substr(numpy_fix.find("-D "))});
    }
}

/// A module of the CUDA family. cudacodec also needs NVIDIA's Video Codec SDK, so with CUDA on
/// it gets its own reason.
bool is_cuda_module(std::string_view m, bool cuda_on) {
    if (m == "cudacodec") return !cuda_on;
    return m.starts_with("cuda") || m == "cudev";
}

void judge_modules(const formats::OpencvBuildLog& log, const LogContext& ctx, std::vector<Verdict>& out) {
    std::vector<std::string> cuda_modules;
    for (const auto& m : log.to_be_built)
        if (is_cuda_module(m, true)) cuda_modules.push_back(m);
    if (!cuda_modules.empty()) out.push_back({"CUDA modules", Status::enabled, cudoctor::report::join(cuda_modules, " "), "", ""});

    std::vector<std::string> cuda_unavailable;
    for (const auto& m : log.unavailable)
        if (is_cuda_module(m, log.cuda)) cuda_unavailable.push_back(m);
    if (!cuda_unavailable.empty()) {
        if (log.cuda)
            out.push_back({"CUDA modules", Status::skipped, "Unavailable: " + cudoctor::report::join(cuda_unavailable, " "),
                           "the cuda* modules live in opencv_contrib, which this build did not include",
                           "-D OPENCV_EXTRA_MODULES_PATH=<opencv_contrib>/modules (the same version as OpenCV)"});
        else if (!ctx.build_information || log.has_cuda_line)
            out.push_back({"CUDA modules", Status::skipped, "Unavailable: " + cudoctor::report::join(cuda_unavailable, " "),
                           "CUDA is not part of this build", "-D WITH_CUDA=ON -D OPENCV_EXTRA_MODULES_PATH=<opencv_contrib>/modules"});
    }
    for (const auto& m : log.unavailable) {
        if (is_cuda_module(m, log.cuda)) continue;
        if (m == "python3" || m == "python2" || m == "world") continue;
        const auto hint = module_hint(m);
        out.push_back({"module " + m, Status::info, "Unavailable",
                       hint.reason.empty() ? "its dependency check failed (the reason is earlier in the full log)" : hint.reason,
                       hint.fix.empty() && hint.reason.empty() ? "-D BUILD_opencv_" + m + "=ON shows what it needs" : hint.fix});
    }
    for (const auto& m : log.disabled_by_dependency)
        out.push_back({"module " + m, Status::info, "Disabled by dependency", "a module it needs is off or unavailable", ""});
}

}  // namespace

const char* to_string(Status status) {
    switch (status) {
        case Status::enabled: return "enabled";
        case Status::skipped: return "skipped";
        case Status::failed: return "failed";
        case Status::info: return "info";
    }
    return "info";
}

bool LogReport::problems() const {
    return std::any_of(verdicts.begin(), verdicts.end(),
                       [](const Verdict& v) { return v.status == Status::skipped || v.status == Status::failed; });
}

bool LogReport::recognized() const {
    return log.has_summary || log.has_cuda_line || log.has_cudnn_line || log.cuda_not_detected || !log.cuda_detected.empty() ||
           !log.errors.empty() || !log.to_be_built.empty() || !log.unavailable.empty() || log.python3 || !log.python_for_build.empty() ||
           log.build_output || !log.compiler_killed.empty() || !log.missing_header.empty();
}

LogReport judge_log(formats::OpencvBuildLog log, const LogContext& context) {
    LogReport report;
    report.log = std::move(log);
    auto& out = report.verdicts;
    judge_build(report.log, context, out);
    judge_errors(report.log, context, out);
    judge_cuda(report.log, out);
    judge_archs(report.log, context, out);
    judge_cudnn(report.log, context, out);
    judge_dnn(report.log, context, out);
    if (!context.build_information) judge_python(report.log, out);
    judge_modules(report.log, context, out);
    return report;
}

nlohmann::json to_json(const Verdict& v) {
    return {{"topic", v.topic}, {"status", to_string(v.status)}, {"summary", v.summary}, {"reason", v.reason}, {"fix", v.fix}};
}

nlohmann::json to_json(const LogReport& report) {
    const auto& log = report.log;
    nlohmann::json verdicts = nlohmann::json::array();
    for (const auto& v : report.verdicts) verdicts.push_back(to_json(v));
    nlohmann::json j{{"opencv_version", log.opencv_version}, {"cuda", log.cuda},
                     {"cuda_version", log.cuda_version},     {"gpu_archs", log.gpu_archs},
                     {"ptx_archs", log.ptx_archs},           {"cudnn", log.cudnn},
                     {"cudnn_version", log.cudnn_version},   {"to_be_built", log.to_be_built},
                     {"unavailable", log.unavailable},       {"verdicts", verdicts},
                     {"problems", report.problems()}};
    if (log.python3)
        j["python3"] = {{"interpreter", log.python3->interpreter}, {"libraries", log.python3->libraries}, {"numpy", log.python3->numpy}};
    return j;
}

static std::string verdict_words(const LogReport& report) {
    std::vector<std::string> failed, skipped;
    std::size_t enabled = 0;
    for (const auto& v : report.verdicts) {
        if (v.status == Status::enabled) ++enabled;
        else if (v.status == Status::failed) failed.push_back(v.topic);
        else if (v.status == Status::skipped) skipped.push_back(v.topic);
    }
    std::string s = report.problems() ? "✗ " : "✓ ";
    s += report.log.opencv_version.empty() ? std::string("OpenCV") : "OpenCV " + report.log.opencv_version;
    s += ": " + std::to_string(enabled) + " enabled";
    if (!failed.empty()) s += ", " + std::to_string(failed.size()) + " failed (" + cudoctor::report::join(failed, ", ") + ")";
    if (!skipped.empty()) s += ", " + std::to_string(skipped.size()) + " skipped (" + cudoctor::report::join(skipped, ", ") + ")";
    return s;
}

std::string verdict_line(const LogReport& report) {
    // Names, versions and messages from the machine or a log: the one escape for the terminal.
    return report::outside_text(verdict_words(report), report::Medium::terminal);
}

namespace {

void write_log_text(const LogReport& report, std::ostream& out) {
    const auto& log = report.log;
    if (!log.opencv_version.empty()) out << "OpenCV " << log.opencv_version << "\n";
    for (const auto& v : report.verdicts) {
        const char* mark = v.status == Status::enabled ? "✓" : v.status == Status::info ? "·" : "✗";
        out << "  " << mark << " " << v.topic << ": "
            << (v.status == Status::skipped  ? "skipped — "
                : v.status == Status::failed ? "FAILED — "
                                             : "")
            << v.summary << "\n";
        if (!v.reason.empty()) out << "      why: " << v.reason << "\n";
        if (!v.fix.empty()) out << "      fix: " << v.fix << "\n";
    }
}

}  // namespace

void render_text(const LogReport& report, std::ostream& out) {
    // Versions, paths and reasons come from a pasted CMake log, and the view's own words hold no
    // control byte: the finished view goes through the one escape, line by line.
    std::ostringstream text;
    write_log_text(report, text);
    out << report::outside_lines(text.str());
}

}  // namespace cudoctor::opencv
