#include "opencv/cmake_plan.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "common/text.hpp"
#include "common/version.hpp"
#include "kb/toolkit_release.hpp"
#include "report/style.hpp"

namespace cudoctor::opencv {
namespace {

const snapshot::Toolkit* choose_toolkit(const snapshot::Snapshot& snap, const std::optional<std::string>& wanted, Error& error) {
    std::vector<const snapshot::Toolkit*> usable;
    for (const auto& tk : snap.toolkits)
        if (tk.has_nvcc && tk.install_method != snapshot::InstallMethod::pip) usable.push_back(&tk);
    if (wanted) {
        for (const auto* tk : usable) {
            if (tk->path == *wanted || tk->version == *wanted) return tk;
            auto want = Version::parse(*wanted);
            auto have = Version::parse(tk->version);
            if (want && have && have->truncated(want->size()) == *want) return tk;
        }
        error = {Errc::usage, "--cuda " + *wanted + ": no installed CUDA toolkit with nvcc matches (cudoctor list shows them)"};
        return nullptr;
    }
    if (usable.empty()) {
        error = {Errc::not_found, "no CUDA toolkit with nvcc on this machine: install one first (cudoctor plan prints the commands)"};
        return nullptr;
    }
    for (const auto* tk : usable)
        if (tk->is_default) return tk;
    for (const auto* tk : usable)
        if (tk->first_on_path) return tk;
    return *std::max_element(usable.begin(), usable.end(), [](const auto* a, const auto* b) {
        return Version::parse(a->version).value_or(Version()) < Version::parse(b->version).value_or(Version());
    });
}

/// The Python to build the binding for: --python, else an active venv / conda env, else
/// /usr/bin/python3, else the first found.
const snapshot::Python* choose_python(const snapshot::Snapshot& snap, const std::optional<std::string>& wanted) {
    auto by_interpreter = [&](std::string_view path) -> const snapshot::Python* {
        for (const auto& p : snap.pythons)
            if (p.interpreter == path) return &p;
        return nullptr;
    };
    if (wanted) return by_interpreter(*wanted);
    for (const auto& env : {snap.environment.virtual_env, snap.environment.active_conda_env}) {
        if (!env) continue;
        for (const auto& p : snap.pythons)
            if (!p.interpreter.empty() && p.interpreter.starts_with(*env + "/")) return &p;
    }
    for (const char* path : {"/usr/bin/python3", "/usr/local/bin/python3"})
        if (auto* p = by_interpreter(path)) return p;
    for (const auto& p : snap.pythons)
        if (!p.interpreter.empty() && p.version.starts_with("3")) return &p;
    return nullptr;
}

std::optional<int> int_major(const std::string& version) {
    auto v = Version::parse(version);
    if (!v) return std::nullopt;
    return v->major();
}

bool has_package(const std::optional<std::set<std::string>>& packages, std::initializer_list<std::string_view> names) {
    if (!packages) return true;  // not a dpkg machine: nothing to say
    for (auto n : names)
        if (packages->count(std::string(n))) return true;
    return false;
}

void add_dev_packages(const snapshot::Snapshot& snap, const std::optional<std::set<std::string>>& packages, CmakePlan& plan) {
    if (!packages) {
        if (!snap.platform.os_id.empty())
            plan.notes.emplace_back("not a Debian/Ubuntu machine (no dpkg database): the package list below the command is not checked");
        return;
    }
    struct Need {
        std::initializer_list<std::string_view> any_of;
        const char* package;
        const char* what;
        const char* why;
        bool required;
    };
    const Need needs[] = {
        {{"build-essential", "g++"}, "build-essential", "a C++ compiler and make", "OpenCV is C++", true},
        {{"cmake"}, "cmake", "CMake", "OpenCV's build system", true},
        {{"pkg-config", "pkgconf"}, "pkg-config", "pkg-config", "CMake finds FFmpeg, GTK and others through it", true},
        {{"libavcodec-dev"}, "libavcodec-dev", "FFmpeg codec headers", "without them VideoCapture cannot read video files", false},
        {{"libavformat-dev"}, "libavformat-dev", "FFmpeg container headers", "without them VideoCapture cannot read video files", false},
        {{"libswscale-dev"}, "libswscale-dev", "FFmpeg scaler headers", "needed with FFmpeg", false},
        {{"libgtk-3-dev", "libgtk2.0-dev", "qtbase5-dev"},
         "libgtk-3-dev",
         "GTK 3 headers",
         "without a GUI toolkit cv2.imshow fails (\"The function is not implemented\")",
         false},
        {{"libjpeg-dev", "libjpeg-turbo8-dev", "libjpeg62-turbo-dev"}, "libjpeg-dev", "JPEG headers", "else OpenCV builds its own copy", false},
        {{"libpng-dev"}, "libpng-dev", "PNG headers", "else OpenCV builds its own copy", false},
        {{"libtiff-dev", "libtiff5-dev"}, "libtiff-dev", "TIFF headers", "else OpenCV builds its own copy", false},
    };
    for (const auto& n : needs)
        if (!has_package(packages, n.any_of)) plan.missing.push_back({n.what, n.why, n.package, "", n.required});
}

void add_host_compiler(const host::Host& host, const snapshot::Snapshot& snap, const kb::Kb& kb, const snapshot::Toolkit& tk,
                       CmakePlan& plan) {
    std::optional<int> max_gcc = tk.max_gcc;
    if (!max_gcc) max_gcc = kb::max_gcc_for(kb, tk);
    const auto& gcc_default = snap.platform.gcc_default;
    if (!max_gcc || !gcc_default || *gcc_default <= *max_gcc) return;
    std::vector<int> installed = snap.platform.gcc_installed;
    std::sort(installed.rbegin(), installed.rend());
    for (int g : installed) {
        if (g > *max_gcc) continue;
        const std::string gxx = "/usr/bin/g++-" + std::to_string(g);
        const std::string why = "the default gcc " + std::to_string(*gcc_default) + " is newer than CUDA " + tk.version + " accepts (gcc " +
                                std::to_string(*max_gcc) + " at most): nvcc would refuse it";
        if (!host.exists(gxx)) {
            const auto pkg = kb.package_name("gxx", {{"gcc", std::to_string(g)}}).value_or("g++-" + std::to_string(g));
            plan.missing.push_back(
                {"g++ " + std::to_string(g) + " (gcc-" + std::to_string(g) + " is there, its C++ compiler is not)", why, pkg, "", true});
        }
        plan.defines.push_back({"CUDA_HOST_COMPILER", gxx, why});
        plan.defines.push_back({"CMAKE_CUDA_HOST_COMPILER", gxx, "the same, for CMake's own CUDA language support (OpenCV 4.9+)"});
        return;
    }
    const std::string v = std::to_string(*max_gcc);
    const auto pkg = kb.package_name("gxx", {{"gcc", v}}).value_or("g++-" + v);
    plan.missing.push_back({"a gcc that CUDA " + tk.version + " accepts (" + v + " or older)",
                            "the default gcc " + std::to_string(*gcc_default) + " is too new for nvcc", pkg, "", true});
    plan.defines.push_back({"CUDA_HOST_COMPILER", "/usr/bin/g++-" + v, "nvcc refuses the default gcc " + std::to_string(*gcc_default)});
    plan.defines.push_back({"CMAKE_CUDA_HOST_COMPILER", "/usr/bin/g++-" + v, "the same, for CMake's own CUDA language support (OpenCV 4.9+)"});
}

}  // namespace

bool CmakePlan::missing_required() const {
    return std::any_of(missing.begin(), missing.end(), [](const Missing& m) { return m.required; });
}

std::string CmakePlan::apt_command() const {
    std::string pkgs;
    for (const auto& m : missing)
        if (!m.package.empty() && !text::contains(pkgs, " " + m.package)) pkgs += " " + m.package;
    return pkgs.empty() ? "" : "sudo apt-get install -y" + pkgs;
}

std::string CmakePlan::configure_command() const {
    std::string out = "cmake -S " + text::shell_quote(src) + " -B " + text::shell_quote(build_dir);
    for (const auto& d : defines) out += " \\\n    -D " + text::shell_quote(d.name + "=" + d.value);
    return out;
}

std::string CmakePlan::build_command() const { return "cmake --build " + text::shell_quote(build_dir) + " -j " + std::to_string(jobs); }
std::string CmakePlan::install_command() const { return "sudo cmake --install " + text::shell_quote(build_dir); }

Expected<CmakePlan> plan_cmake(const host::Host& host, const snapshot::Snapshot& snap, const kb::Kb& kb, const CmakeRequest& request) {
    CmakePlan plan;
    plan.src = request.src;
    plan.build_dir = host::join(request.src, "build");
    if (!request.src.empty() && request.src.front() != '/') plan.build_dir = request.src + "/build";

    plan.gpus = request.gpus;
    if (plan.gpus.empty())
        for (const auto& g : snap.gpus)
            if (auto cc = gpucode::parse_compute_capability(g.compute_capability))
                plan.gpus.push_back({g.name.empty() ? "GPU " + g.bus_id : g.name, *cc, g.bus_id});
    if (plan.gpus.empty())
        return fail(Errc::usage, snap.gpus.empty()
                                     ? "no NVIDIA GPU found on this machine: give --gpu 8.9 or --gpu \"RTX 4090\""
                                     : "this machine's GPU has no known compute capability: give --gpu 8.9 or --gpu \"RTX 4090\"");

    Error error;
    const auto* tk = choose_toolkit(snap, request.cuda, error);
    if (!tk) return BasicExpected<CmakePlan, Error>(Unexpected<Error>(error));
    plan.toolkit_version = tk->version;
    plan.toolkit_path = tk->path;
    const auto cuda_major = int_major(tk->version);

    // The architectures: this machine's (or --gpu), each compiled natively; PTX only with --portable.
    std::vector<gpucode::ComputeCapability> ccs;
    for (const auto& g : plan.gpus)
        if (std::find(ccs.begin(), ccs.end(), g.cc) == ccs.end()) ccs.push_back(g.cc);
    std::sort(ccs.begin(), ccs.end());
    std::string arch_bin;
    for (const auto& cc : ccs) {
        arch_bin += (arch_bin.empty() ? "" : ",") + cc.str();
        if (auto range = kb.toolkits_supporting(cc.str()); range && !tk->version.empty()) {
            const auto v = Version::parse(tk->version).value_or(Version());
            if (v < range->first.truncated(2) || (range->last && v.truncated(2) > range->last->truncated(2)))
                plan.notes.push_back("CUDA " + tk->version + " cannot compile for compute capability " + cc.str() + " (CUDA " +
                                     range->first.str() + (range->last ? " to " + range->last->str() : std::string(" and newer")) +
                                     " can): nvcc will fail on it");
        }
    }
    const bool dnn_arch_ok = ccs.front() >= gpucode::ComputeCapability{5, 3};

    // cuDNN for this CUDA major: headers are what CMake needs.
    const snapshot::Cudnn* cudnn = nullptr;
    for (const auto& c : snap.cudnn)
        if (!c.header_version.empty() && (c.cuda_major.empty() || !cuda_major || c.cuda_major == std::to_string(*cuda_major))) {
            cudnn = &c;
            break;
        }
    if (cudnn) plan.cudnn_version = cudnn->header_version;

    const auto packages = installed_packages(host);
    add_dev_packages(snap, packages, plan);
    if (!cudnn && dnn_arch_ok) {
        const auto newest = cuda_major ? kb.newest_cudnn_for(Version({*cuda_major})) : std::nullopt;
        const auto pkg =
            newest && newest->major() >= 9 ? kb.package_name("cudnn9_dev", {{"major", std::to_string(*cuda_major)}}) : std::nullopt;
        plan.missing.push_back(
            {"cuDNN headers and library" + (cuda_major ? " for CUDA " + std::to_string(*cuda_major) : std::string()),
             "OPENCV_DNN_CUDA needs them: without cuDNN CMake stops (\"DNN: CUDA backend requires cuDNN\") or, with the option off, cv2.dnn runs on the CPU",
             pkg.value_or(""), pkg ? "" : "install cuDNN for this CUDA (https://developer.nvidia.com/cudnn)", true});
    }

    plan.defines.push_back({"CMAKE_BUILD_TYPE", "Release", ""});
    plan.defines.push_back({"CMAKE_INSTALL_PREFIX", request.install_prefix, ""});
    if (request.contrib)
        plan.defines.push_back({"OPENCV_EXTRA_MODULES_PATH", host::join(*request.contrib, "modules"),
                                "the cuda* modules (cudaarithm, cudaimgproc, …) live in opencv_contrib"});
    else
        plan.notes.emplace_back(
            "no --contrib: the cuda* modules (cudaarithm, cudaimgproc, cv2.cuda.GpuMat filters, …) are in opencv_contrib; without it only the DNN CUDA backend uses the GPU");
    plan.defines.push_back({"WITH_CUDA", "ON", ""});
    plan.defines.push_back({"CUDA_TOOLKIT_ROOT_DIR", tk->path, "the toolkit to build with (CUDA " + tk->version + ")"});
    plan.defines.push_back(
        {"CUDA_ARCH_BIN", arch_bin,
         "native code for exactly these GPUs: no \"no kernel image\" at run time, and a build far shorter than all architectures"});
    plan.defines.push_back({"CUDA_ARCH_PTX", request.portable ? ccs.front().str() : "",
                            request.portable ? "PTX of the lowest architecture: newer GPUs run it through the driver's JIT"
                                             : "no PTX: this machine only (--portable adds it)"});
    plan.defines.push_back({"WITH_CUBLAS", "ON", ""});
    plan.defines.push_back({"WITH_CUDNN", dnn_arch_ok ? "ON" : "OFF", ""});
    plan.defines.push_back(
        {"OPENCV_DNN_CUDA", dnn_arch_ok ? "ON" : "OFF",
         dnn_arch_ok ? "the DNN CUDA backend (cv2.dnn.DNN_BACKEND_CUDA)" : "the DNN CUDA backend needs compute capability 5.3 or higher"});
    if (!dnn_arch_ok)
        plan.notes.push_back("compute capability " + ccs.front().str() + " is below 5.3: OpenCV's DNN CUDA backend cannot be built for it");
    if (ccs.size() > 1)
        // nvcc compiles every .cu file once per -gencode target (CUDA_ARCH_BIN and CUDA_ARCH_PTX
        // each add one): the device half of the build scales with the count.
        plan.notes.push_back(std::to_string(ccs.size()) + " architectures in CUDA_ARCH_BIN: nvcc compiles each of OpenCV's CUDA files " +
                             std::to_string(ccs.size()) + " times, so the CUDA part of the build takes about " +
                             std::to_string(ccs.size()) + "× as long as for one; drop the GPUs this build will never run on");
    if (cudnn && (cudnn->location == "pip" || cudnn->location == "conda")) {
        const std::string include = host::join(host::dirname(cudnn->path), "include");
        plan.defines.push_back({"CUDNN_INCLUDE_DIR", include, "cuDNN from " + cudnn->location + " is outside CMake's search path"});
        for (const auto& v : cudnn->library_versions) {
            const std::string lib = host::join(cudnn->path, "libcudnn.so." + std::to_string(int_major(v).value_or(0)));
            if (host.exists(lib)) {
                plan.defines.push_back({"CUDNN_LIBRARY", lib, ""});
                break;
            }
        }
    }
    add_host_compiler(host, snap, kb, *tk, plan);

    // Python 3 and numpy.
    const auto* py = choose_python(snap, request.python);
    const std::string interpreter = py ? py->interpreter : request.python.value_or("");
    plan.python = interpreter;
    if (interpreter.empty()) {
        plan.missing.push_back({"Python 3", "the cv2 module is built for a Python 3 interpreter", "python3-dev", "", false});
    } else {
        plan.defines.push_back({"BUILD_opencv_python3", "ON", ""});
        plan.defines.push_back({"PYTHON3_EXECUTABLE", interpreter, "cv2 is built for this interpreter"});
        std::optional<std::string> numpy;
        for (const auto& p : snap.pythons)
            if (p.interpreter == interpreter && !numpy) numpy = numpy_include(host, p.site);
        if (numpy) {
            plan.defines.push_back({"PYTHON3_NUMPY_INCLUDE_DIRS", *numpy, "without numpy's headers the Python binding is silently skipped"});
        } else {
            const bool system = interpreter.starts_with("/usr/bin/");
            plan.missing.push_back({"numpy for " + interpreter,
                                    "without numpy's headers CMake silently skips the Python 3 binding (\"numpy: NO\")",
                                    system ? "python3-numpy" : "", system ? "" : interpreter + " -m pip install numpy", true});
        }
        if (py && !py->has_headers) {
            const std::string dev = py->version.empty() ? "python3-dev" : "python" + py->version + "-dev";
            plan.missing.push_back({"Python.h for Python " + py->version, "the binding is compiled against Python's headers",
                                    interpreter.starts_with("/usr/bin/") ? dev : "",
                                    interpreter.starts_with("/usr/bin/")
                                        ? ""
                                        : "install the headers of this Python (conda/venv: they come with the interpreter's distribution)",
                                    true});
        }
    }

    const auto resources = host::read_build_resources(host);
    plan.jobs = host::parallel_jobs(resources, plan.jobs_why);
    if (!resources.mem_available_kib)
        plan.notes.emplace_back(
            "memory unknown: each nvcc job of OpenCV can take about 3 GB; more jobs than that lets the kernel kill cc1plus");
    return plan;
}

namespace {

/// "OpenCV with CUDA for GeForce RTX 4090 (8.9): CUDA 12.4 (/usr/local/cuda-12.4), cuDNN 9.1.0".
std::string headline(const CmakePlan& plan) {
    std::string s = "OpenCV with CUDA for";
    for (std::size_t i = 0; i < plan.gpus.size(); ++i) s += (i ? ", " : " ") + plan.gpus[i].name + " (" + plan.gpus[i].cc.str() + ")";
    s += ": CUDA " + plan.toolkit_version + " (" + plan.toolkit_path + ")";
    s += plan.cudnn_version.empty() ? ", no cuDNN" : ", cuDNN " + plan.cudnn_version;
    if (!plan.python.empty()) s += ", " + plan.python;
    return s;
}

void write_plan_text(const CmakePlan& plan, std::ostream& out) {
    out << headline(plan) << "\n\n";
    if (!plan.missing.empty()) {
        out << "Missing first:\n";
        for (const auto& m : plan.missing) {
            out << "  " << (m.required ? "✗ " : "· ") << m.what << (m.package.empty() ? "" : " [" + m.package + "]") << "\n      " << m.why
                << "\n";
            if (!m.command.empty()) out << "      " << m.command << "\n";
        }
        if (auto apt = plan.apt_command(); !apt.empty()) out << "\n  " << apt << "\n";
        out << "\n";
    }
    out << "Configure:\n" << plan.configure_command() << "\n\n";
    out << "Build (-j " << plan.jobs << ": " << plan.jobs_why << "):\n" << plan.build_command() << "\n" << plan.install_command() << "\n";
    if (!plan.notes.empty()) {
        out << "\nNotes:\n";
        for (const auto& n : plan.notes) out << "  · " << n << "\n";
    }
    out << "\nAfterwards: cmake … 2>&1 | tee cmake_config.log, then `cudoctor opencv log cmake_config.log` says what was really enabled.\n";
}

}  // namespace

std::string verdict_line(const CmakePlan& plan) {
    std::size_t required = 0;
    for (const auto& m : plan.missing) required += m.required;
    const std::string head = report::outside_text(headline(plan), report::Medium::terminal);  // names from the machine
    if (plan.missing.empty()) return head + "; nothing missing";
    return head + "; " + std::to_string(plan.missing.size()) + " missing first (" + std::to_string(required) + " required)";
}

void render_text(const CmakePlan& plan, std::ostream& out) {
    // The GPU names, paths, the Python and the notes come from the machine, and the view's own
    // words hold no control byte: the finished view goes through the one escape, line by line.
    std::ostringstream text;
    write_plan_text(plan, text);
    out << report::outside_lines(text.str());
}

nlohmann::json to_json(const CmakePlan& plan) {
    nlohmann::json gpus = nlohmann::json::array(), missing = nlohmann::json::array(), defines = nlohmann::json::array();
    for (const auto& g : plan.gpus) gpus.push_back({{"name", g.name}, {"compute_capability", g.cc.str()}});
    for (const auto& m : plan.missing)
        missing.push_back({{"what", m.what}, {"why", m.why}, {"package", m.package}, {"command", m.command}, {"required", m.required}});
    for (const auto& d : plan.defines) defines.push_back({{"name", d.name}, {"value", d.value}, {"why", d.why}});
    return {{"gpus", gpus},
            {"toolkit", {{"version", plan.toolkit_version}, {"path", plan.toolkit_path}}},
            {"cudnn_version", plan.cudnn_version},
            {"python", plan.python},
            {"missing", missing},
            {"apt_command", plan.apt_command()},
            {"defines", defines},
            {"configure_command", plan.configure_command()},
            {"jobs", plan.jobs},
            {"jobs_why", plan.jobs_why},
            {"build_command", plan.build_command()},
            {"install_command", plan.install_command()},
            {"notes", plan.notes}};
}

}  // namespace cudoctor::opencv
