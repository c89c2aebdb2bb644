// Level 3: cuDNN and the frameworks. cuDNN loads (isolated), reports its version and the CUDA it
// was built with, and makes a handle where a GPU works; each framework `check` found initialises
// CUDA in its own interpreter, which also lists the libcudart / cuBLAS / cuDNN files it mapped.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/text.hpp"
#include "common/version.hpp"
#include "driver/driver_calls.hpp"
#include "driver/library_search.hpp"
#include "driver/loaded_libraries.hpp"
#include "verify/causes.hpp"
#include "verify/framework_script.hpp"
#include "verify/levels.hpp"

namespace cudoctor::verify::detail {
namespace {

std::optional<int> default_toolkit_major(const snapshot::Snapshot& snap) {
    for (const auto& tk : snap.toolkits)
        if (tk.is_default || tk.first_on_path)
            if (auto v = Version::parse(tk.version)) return v->major();
    return std::nullopt;
}

void cudnn_steps(Context& ctx, Level& level) {
    if (auto inert = driver::image_is_inert(ctx.host); inert && !ctx.snap.cudnn.empty()) {
        level.steps.emplace_back("cudnn", "cuDNN loads and reports its version", Status::skip, *inert);
        return;
    }
    const auto candidates = driver::cudnn_candidates(ctx.host, ctx.snap);
    if (candidates.empty()) {
        level.steps.emplace_back("cudnn", "cuDNN loads and reports its version", Status::skip, "no cuDNN library found by check");
        return;
    }
    for (const auto& c : candidates) {
        Step load{"cudnn", "cuDNN loads and reports its version (" + c.label + ")"};
        Step handle{"cudnn-handle", "cuDNN creates a handle on the GPU (" + c.label + ")"};
        auto a = driver::query_cudnn(c.file, ctx.driver_usable, ctx.options.call_timeout);
        if (!a) {
            load.status = Status::fail;
            load.reason = "could not start a child process: " + a.error().message;
        } else if (a->library.empty()) {
            load.reason = "cannot be loaded: " + report::join(a->tried, "; ");
            blame(load, ctx.snap, {"cudnn-cuda-mismatch"},
                  "A cuDNN library that does not load: one of its parts (libcudnn_*.so) or "
                  "the CUDA libraries it needs are missing.",
                  "ldd " + c.file + " | grep 'not found'");
        } else if (!a->version && !a->child.trouble().empty()) {
            load.reason = "libcudnn: " + a->child.trouble();
            blame(load, ctx.snap, {}, "cuDNN hung or crashed while reporting its version: a damaged or mixed cuDNN install.",
                  "ls -l " + host::dirname(c.file) + "/libcudnn*");
        } else if (!a->version) {
            load.status = Status::fail;
            load.reason = a->library + " lacks cudnnGetVersion: not a cuDNN library";
        } else {
            const std::string version = driver::cudnn_version_text(*a->version);
            const std::string cuda = a->cudart_version ? driver::cuda_version_text(static_cast<int>(*a->cudart_version)) : "";
            load.status = Status::pass;
            load.reason = fmt::format("cuDNN {}{} ({})", version, cuda.empty() ? "" : ", built with CUDA " + cuda, a->library);
            load.details.push_back({"cudnnGetVersion", std::to_string(*a->version)});
            if (a->cudart_version) load.details.push_back({"cudnnGetCudartVersion", std::to_string(*a->cudart_version)});
            const auto tk_major = default_toolkit_major(ctx.snap);
            const auto cudnn_cuda = Version::parse(cuda);
            if (tk_major && cudnn_cuda && cudnn_cuda->major() != *tk_major) {
                load.reason += fmt::format("; the default toolkit is CUDA {}", *tk_major);
                blame(load, ctx.snap, {"cudnn-cuda-mismatch"},
                      fmt::format("This cuDNN was built for CUDA {}.x but the default toolkit is CUDA {}: programs built with the "
                                  "toolkit fail to load or initialise it.",
                                  cudnn_cuda->major(), *tk_major),
                      fmt::format("# install the cuDNN build for CUDA {} (e.g. pip install nvidia-cudnn-cu{})", *tk_major, *tk_major));
            }
        }
        level.steps.push_back(load);

        if (load.status != Status::pass && load.rule != "cudnn-cuda-mismatch") {
            handle.reason = "cuDNN did not load";
        } else if (!ctx.driver_usable) {
            handle.reason = needs_gpu(ctx);
        } else if (!a->create_result && !a->child.trouble().empty()) {
            handle.reason = "cudnnCreate: " + a->child.trouble();
            blame(handle, ctx.snap, {}, "cuDNN hung or crashed creating a handle.", "sudo dmesg | grep -i -E 'nvrm|xid' | tail");
        } else if (a->create_result && *a->create_result == 0) {
            handle.status = Status::pass;
            handle.reason = "cudnnCreate = CUDNN_STATUS_SUCCESS";
        } else {
            handle.reason = fmt::format("cudnnCreate = {} ({})", a->create_text, a->create_result.value_or(-1));
            blame(handle, ctx.snap, {"cudnn-cuda-mismatch"},
                  "cuDNN could not initialise on the GPU (its CUDA runtime or the "
                  "driver refused).",
                  "");
        }
        level.steps.push_back(handle);
    }
}

struct FrameworkRun {
    std::string trouble;    ///< could not run / no result
    nlohmann::json result;  ///< the script's JSON
    std::string warning;    ///< the last "CUDA" line of stderr (torch's initialisation warning)
};

FrameworkRun run_framework(const Context& ctx, const snapshot::Framework& fw, const std::string& module) {
    FrameworkRun run;
    auto res = ctx.host.run({fw.interpreter, "-c", std::string(kFrameworkScript), module}, ctx.options.framework_timeout);
    if (!res) {
        run.trouble = res.error().message;
        return run;
    }
    for (auto line : text::split(res->err, '\n'))
        if (line.find("CUDA") != std::string_view::npos || line.find("cuda") != std::string_view::npos)
            run.warning = std::string(text::trim(line));
    for (auto line : text::split(res->out, '\n')) {
        if (!line.starts_with(kFrameworkResultPrefix)) continue;
        auto j = nlohmann::json::parse(line.substr(kFrameworkResultPrefix.size()), nullptr, false);
        if (j.is_object()) run.result = std::move(j);
    }
    if (!run.result.is_object())
        run.trouble = res->exit_code < 0 ? "the interpreter was killed by a signal"
                                         : fmt::format("the interpreter exited with {} without a result", res->exit_code);
    return run;
}

Step framework_step(Context& ctx, const snapshot::Framework& fw) {
    const std::string module = fw.name == "jaxlib" ? "jax" : fw.name;
    Step step{"framework-" + module, fmt::format("{} initialises CUDA in {}", module, fw.interpreter)};
    auto run = run_framework(ctx, fw, module);
    if (!run.trouble.empty()) {
        step.reason = fmt::format("{} -c 'import {}': {}", fw.interpreter, module, run.trouble);
        blame(step, ctx.snap, {}, "The framework's interpreter did not finish importing it.", "");
        return step;
    }
    const auto& r = run.result;
    std::vector<std::string> mapped = driver::fact<std::vector<std::string>>(r, "libraries").value_or(std::vector<std::string>{});
    const auto loaded = driver::classify_loaded(mapped, module);
    bool any_cuda = false;
    for (const auto& lib : loaded) {
        step.details.push_back({lib.kind == "framework" ? host::basename(lib.path) : lib.kind, lib.path + " (" + lib.origin + ")"});
        any_cuda |= lib.kind != "framework";
    }
    if (!any_cuda) step.details.push_back({"CUDA libraries loaded", "none"});
    const std::string version = driver::fact<std::string>(r, "version").value_or(fw.version);
    if (auto error = driver::fact<std::string>(r, "error")) {
        step.reason = fmt::format("import {} failed: {}", module, *error);
        blame(step, ctx.snap, {"cudnn-cuda-mismatch", "tensorflow-cuda-mismatch"}, "The framework does not import: " + *error, "");
        return step;
    }
    std::string build;
    if (auto it = r.find("cuda_build"); it != r.end() && !it->is_null()) build = it->is_string() ? it->get<std::string>() : it->dump();
    if (build.empty()) {
        step.reason = fmt::format("{} {} imports: a CPU build{}", module, version,
                                  module == "torch" ? " (torch.version.cuda is None)" : " (no CUDA support)");
        const bool gpu_expected = ctx.driver_usable || !ctx.snap.gpus.empty();
        if (gpu_expected) {
            blame(step, ctx.snap, {"framework-cpu-only-build"}, "A CPU-only build never uses the GPU.",
                  "# install the CUDA build of " + module + " (see cudoctor plan)");
        } else {
            step.status = Status::skip;
            step.reason += "; no GPU on this machine to use either";
        }
        return step;
    }
    const bool available = driver::fact<bool>(r, "available").value_or(false);
    if (!available) {
        step.reason = fmt::format("{} {} is a CUDA build but sees no GPU{}", module, version,
                                  r.contains("init_error") ? ": " + driver::fact<std::string>(r, "init_error").value_or("") : std::string());
        if (!run.warning.empty()) step.details.push_back({"warning", run.warning});
        if (!ctx.driver_usable) blame(step, ctx.snap, {"driver-too-old-for-framework"}, "Level 1 failed: " + ctx.driver_trouble, "");
        else
            blame(step, ctx.snap, {"driver-too-old-for-framework", "framework-gpu-arch-unsupported", "cudnn-cuda-mismatch"},
                  "The framework's own CUDA runtime could not initialise the GPU" + (run.warning.empty() ? "." : ": " + run.warning), "");
        return step;
    }
    const auto count = driver::fact<int>(r, "device_count").value_or(0);
    const auto devices = driver::fact<std::vector<std::string>>(r, "devices").value_or(std::vector<std::string>{});
    step.reason = fmt::format("{} {} (CUDA {}) sees {} GPU(s){}", module, version, build, count,
                              devices.empty() ? "" : ": " + report::join(devices, ", "));
    if (auto err = driver::fact<double>(r, "matmul_max_abs_err")) {
        step.details.push_back({"GPU matmul vs CPU", fmt::format("largest difference {:.3g}", *err)});
        if (*err > 1e-2) {
            blame(step, ctx.snap, {}, "A 64×64 matmul on the GPU differs from the CPU result: wrong results from the GPU.",
                  "nvidia-smi -q -d ECC,CLOCK");
            return step;
        }
    }
    step.status = Status::pass;
    return step;
}

}  // namespace

Level level3(Context& ctx) {
    Level level{3, "cuDNN and frameworks"};
    cudnn_steps(ctx, level);
    std::vector<std::string> done;
    for (const auto& fw : ctx.snap.frameworks) {
        const std::string module = fw.name == "jaxlib" ? "jax" : fw.name;
        if (module == "triton") continue;  // no device runtime of its own to initialise
        const std::string key = module + "@" + fw.interpreter;
        if (std::find(done.begin(), done.end(), key) != done.end()) continue;
        done.push_back(key);
        if (fw.interpreter.empty()) {
            level.steps.emplace_back("framework-" + module, module + " initialises CUDA", Status::skip,
                                     "no interpreter found for " + fw.python);
        } else if (ctx.host.is_rooted()) {
            level.steps.emplace_back("framework-" + module, module + " initialises CUDA", Status::skip,
                                     std::string(host::kNotRunInImage) + " (" + fw.interpreter + ")");
        } else {
            level.steps.push_back(framework_step(ctx, fw));
        }
    }
    if (ctx.snap.frameworks.empty())
        level.steps.emplace_back("frameworks", "frameworks initialise CUDA", Status::skip, "no framework found by check");
    return level;
}

}  // namespace cudoctor::verify::detail
