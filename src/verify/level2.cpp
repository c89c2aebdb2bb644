// Level 2: the toolkit works. nvcc compiles a small program for this GPU in a temporary folder
// (removed after); the program launches a kernel over poisoned memory and checks every value,
// and runs a cuBLAS SGEMM against a CPU reference. Without nvcc, NVRTC compiles the kernel and
// the driver API launches it. Programs run only where level 1 found a usable GPU.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/text.hpp"
#include "common/version.hpp"
#include "driver/kernel_source.hpp"
#include "driver/library_search.hpp"
#include "driver/nvrtc_calls.hpp"
#include "verify/causes.hpp"
#include "verify/check_output.hpp"
#include "verify/levels.hpp"

namespace cudoctor::verify::detail {
namespace {

/// A folder under $TMPDIR removed with everything in it when the scope ends.
class ScratchDir {
  public:
    ScratchDir() {
        std::error_code ec;
        auto base = std::filesystem::temp_directory_path(ec);
        std::string tmpl = ((ec ? std::filesystem::path("/tmp") : base) / "cudoctor-verify-XXXXXX").string();
        if (::mkdtemp(tmpl.data())) m_path = tmpl;
    }
    ~ScratchDir() {
        std::error_code ec;
        if (!m_path.empty()) std::filesystem::remove_all(m_path, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return m_path; }

  private:
    std::string m_path;
};

const snapshot::Toolkit* toolkit_with_nvcc(const snapshot::Snapshot& snap) {
    const snapshot::Toolkit* best = nullptr;
    auto rank = [](const snapshot::Toolkit& t) { return t.first_on_path ? 2 : t.is_default ? 1 : 0; };
    for (const auto& tk : snap.toolkits) {
        if (!tk.has_nvcc || tk.nvcc_path.empty()) continue;
        if (!best || rank(tk) > rank(*best)) best = &tk;
        else if (rank(tk) == rank(*best)) {
            auto a = Version::parse(tk.version), b = Version::parse(best->version);
            if (a && b && *a > *b) best = &tk;
        }
    }
    return best;
}

/// The toolkit's library file `prefix`.so.N ("libnvrtc", "libcublas"), searched in its lib_dir,
/// lib64 and lib; "" when none.
std::string toolkit_library(const host::Host& host, const snapshot::Toolkit& tk, std::string_view prefix) {
    std::vector<std::string> dirs;
    if (!tk.lib_dir.empty()) dirs.push_back(tk.lib_dir);
    dirs.push_back(host::join(tk.path, "lib64"));
    dirs.push_back(host::join(tk.path, "lib"));
    for (const auto& dir : dirs) {
        for (const auto& file : host.glob(dir, std::string(prefix) + ".so.[0-9]*")) {
            const auto name = host::basename(file);
            if (std::count(name.begin(), name.end(), '.') == 2) return host.host_path(file);  // libnvrtc.so.13
        }
    }
    return {};
}

std::string arch_of(const Context& ctx) {
    std::string cc = ctx.compute_capability;
    if (cc.empty() && !ctx.snap.gpus.empty()) cc = ctx.snap.gpus.front().compute_capability;
    cc.erase(std::remove(cc.begin(), cc.end(), '.'), cc.end());
    return cc;
}

std::string seconds_since(std::chrono::steady_clock::time_point start) {
    return fmt::format("{:.1f} s", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

/// The first line of compiler output that says "error" (else the last line).
std::string first_error_line(const std::string& output) {
    const auto lines = text::split(output, '\n');
    for (auto line : lines)
        if (line.find("error") != std::string_view::npos) return std::string(text::trim(line));
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (!text::trim(*it).empty()) return std::string(text::trim(*it));
    return {};
}

void blame_compile(Step& step, const Context& ctx, const std::string& output, const std::string& arch) {
    if (output.find("unsupported GNU version") != std::string::npos || output.find("unsupported GCC") != std::string::npos) {
        blame(step, ctx.snap, {"gcc-too-new-for-toolkit"}, "The host gcc is newer than this nvcc accepts.",
              "nvcc -ccbin g++-12 …   # an older gcc the toolkit supports");
    } else if (output.find("Unsupported gpu architecture") != std::string::npos ||
               output.find("invalid value for --gpu-architecture") != std::string::npos) {
        blame(step, ctx.snap, {"gpu-arch-unsupported-by-toolkit"},
              "This toolkit cannot compile for the GPU's architecture sm_" + arch +
                  ": the GPU is newer than the toolkit, or "
                  "older than the toolkit still supports.",
              "# install a toolkit that supports compute capability " + ctx.compute_capability);
    } else {
        blame(step, ctx.snap, {"cuda-home-invalid"},
              "The compiler failed on a kernel that every working toolkit compiles: " + first_error_line(output), "");
    }
}

/// Runs the compiled check program once in `mode` and turns its one line into a step.
Step run_check_program(const Context& ctx, const snapshot::Toolkit& tk, Step step, const std::string& program,
                       const std::vector<std::string>& args) {
    std::vector<std::string> argv = {program};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto run = host::Host::real().run(argv, ctx.options.run_timeout);
    if (!run) {
        step.reason = run.error().message;
        blame(step, ctx.snap, {},
              run.error().code == Errc::timeout ? "The program did not finish: a GPU that hangs on a tiny "
                                                  "kernel is wedged (Xid errors in dmesg)."
                                                : "The program could not be started.",
              "sudo dmesg | grep -i -E 'nvrm|xid' | tail");
        return step;
    }
    const auto outcome = parse_check_output(run->out);
    if (!outcome) {
        step.reason = run->exit_code < 0 ? "the program was killed by a signal"
                                         : "the program printed no result (exit " + std::to_string(run->exit_code) + ")";
        blame(step, ctx.snap, {}, "The check program ended without a verdict: " + first_error_line(run->out + run->err), "");
        return step;
    }
    step.reason = outcome->summary;
    if (outcome->kind == CheckOutcome::Kind::ok) {
        step.status = Status::pass;
    } else if (outcome->kind == CheckOutcome::Kind::unavailable) {
        step.status = Status::skip;
    } else if (outcome->kind == CheckOutcome::Kind::error) {
        explain_cuda_error(step, ctx, *outcome, &tk);
    } else {
        blame(step, ctx.snap, {},
              "The GPU computed wrong results: a hardware fault, an overclock, or a driver bug. Such a GPU "
              "cannot be trusted for any result.",
              "nvidia-smi -q -d ECC,CLOCK   # ECC errors, clocks\nsudo dmesg | grep -i xid | tail");
    }
    return step;
}

Level nvcc_path(Context& ctx, Level level, const snapshot::Toolkit& tk) {
    Step compile{"nvcc-compile", "nvcc compiles a kernel for this GPU"};
    ScratchDir scratch;
    const std::string arch = arch_of(ctx);
    const auto source = scratch.path() + "/cudoctor_check.cu";
    const auto program = scratch.path() + "/cudoctor_check";
    bool compiled = false;
    if (scratch.path().empty()) {
        compile.status = Status::fail;
        compile.reason = "cannot make a temporary folder";
    } else {
        std::ofstream(source) << driver::kProgramSource;
        std::vector<std::string> argv = {tk.nvcc_path, "-O2", "-o", program, source, "-Wno-deprecated-gpu-targets", "-ldl"};
        if (!arch.empty()) argv.push_back("-arch=sm_" + arch);
        const auto start = std::chrono::steady_clock::now();
        auto run = ctx.host.run(argv, ctx.options.compile_timeout);
        compile.details.push_back({"command", report::join(argv, " ")});
        if (!run) {
            compile.reason = run.error().message;
            blame(compile, ctx.snap, {}, "nvcc could not be run to the end.", "");
        } else if (run->exit_code != 0) {
            compile.reason = fmt::format("nvcc exited with {}: {}", run->exit_code, first_error_line(run->err + run->out));
            blame_compile(compile, ctx, run->err + run->out, arch);
        } else {
            compiled = true;
            compile.status = Status::pass;
            compile.reason = fmt::format("{} (CUDA {}) compiled a kernel for {} in {}", tk.nvcc_path, tk.version,
                                         arch.empty() ? "nvcc's default architecture" : "sm_" + arch, seconds_since(start));
        }
        compile.details.push_back({"temporary folder", scratch.path() + " (removed after)"});
    }
    level.steps.push_back(compile);

    Step kernel{"kernel-run", "the kernel runs and every thread wrote its value"};
    Step gemm{"cublas-gemm", "cuBLAS runs a 64×64 SGEMM that matches the CPU"};
    const std::string cublas = toolkit_library(ctx.host, tk, "libcublas");
    if (!compiled) {
        kernel.reason = gemm.reason = "nothing to run: the compile failed";
    } else if (!ctx.driver_usable) {
        kernel.reason = gemm.reason = "compiled, but cannot run here: " + needs_gpu(ctx);
    } else if (ctx.host.is_rooted()) {
        kernel.reason = gemm.reason = std::string(host::kNotRunInImage);
    } else {
        kernel = run_check_program(ctx, tk, kernel, program, {"kernel"});
        if (cublas.empty()) gemm.reason = "no libcublas.so.N in " + tk.path;
        else gemm = run_check_program(ctx, tk, gemm, program, {"gemm", cublas});
    }
    level.steps.push_back(kernel);
    level.steps.push_back(gemm);
    return level;
}

/// libnvrtc.so.N from a toolkit (pip wheels put one in nvidia/cu13/lib or nvidia/cuda_nvrtc/lib).
std::string find_nvrtc(const Context& ctx) {
    for (const auto& tk : ctx.snap.toolkits)
        if (auto lib = toolkit_library(ctx.host, tk, "libnvrtc"); !lib.empty()) return lib;
    for (const auto& py : ctx.snap.pythons)
        for (const auto& dir : ctx.host.glob(host::join(py.site, "nvidia"), "*"))
            for (const auto& file : ctx.host.glob(host::join(dir, "lib"), "libnvrtc.so.[0-9]*"))
                if (std::count(file.begin(), file.end(), '.') >= 2 && host::basename(file).find("builtins") == std::string::npos)
                    return ctx.host.host_path(file);
    return {};
}

Level nvrtc_path(Context& ctx, Level level) {
    Step compile{"nvrtc-compile", "NVRTC compiles the kernel to PTX for this GPU"};
    Step kernel{"kernel-launch", "the driver API loads the PTX, launches it, and every thread wrote its value"};
    const std::string nvrtc = find_nvrtc(ctx);
    if (nvrtc.empty()) {
        compile.reason = "no nvcc and no libnvrtc.so.N found";
        blame(compile, ctx.snap, {"toolkit-not-on-path"}, "No CUDA compiler: neither a toolkit with nvcc nor NVRTC is installed.",
              "pip install nvidia-cuda-nvrtc   # NVRTC alone, or install a CUDA toolkit");
        kernel.reason = "nothing to launch: no compiler";
        level.steps.push_back(compile);
        level.steps.push_back(kernel);
        return level;
    }
    const std::string arch = arch_of(ctx);
    std::vector<std::string> launch_on;
    if (ctx.driver_usable) launch_on = driver::driver_library_candidates(ctx.host, "libcuda.so.1");
    // A compile, like nvcc's, gets the compile budget: loading libnvrtc and its builtins from a cold disk (or
    // under a sanitizer on a busy machine) takes seconds, and --timeout is meant for driver calls that hang.
    auto answer = driver::nvrtc_compile_and_launch(nvrtc, arch.empty() ? "" : "compute_" + arch, launch_on,
                                                   ctx.options.compile_timeout + ctx.options.call_timeout);
    if (!answer) {
        compile.status = Status::fail;
        compile.reason = "could not start a child process: " + answer.error().message;
        level.steps.push_back(compile);
        return level;
    }
    const driver::NvrtcAnswer& a = *answer;
    compile.details.push_back({"library", a.library.empty() ? nvrtc : a.library});
    const bool compiled = a.compile_result && *a.compile_result == 0 && a.ptx_bytes > 0;
    if (a.library.empty()) {
        compile.reason = "libnvrtc cannot be loaded: " + report::join(a.tried, "; ");
        blame(compile, ctx.snap, {}, "The NVRTC library is there but does not load (a missing dependency or a damaged file).",
              "ldd " + nvrtc);
    } else if (!a.compile_result) {
        compile.reason = a.child.trouble().empty() ? "NVRTC lacks " + report::join(a.missing, ", ") : "NVRTC " + a.child.trouble();
        blame(compile, ctx.snap, {}, "NVRTC did not compile the kernel.", "");
    } else if (!compiled) {
        compile.reason = fmt::format("nvrtcCompileProgram = {} ({}): {}", a.compile_text, *a.compile_result, first_error_line(a.log));
        if (a.log.find("invalid value for --gpu-architecture") != std::string::npos || a.log.find("-arch") != std::string::npos)
            blame_compile(compile, ctx, "Unsupported gpu architecture", arch);
        else blame(compile, ctx.snap, {}, "NVRTC rejected a kernel every working NVRTC compiles.", "");
    } else {
        compile.status = Status::pass;
        compile.reason = fmt::format("NVRTC {} compiled the kernel to {} bytes of PTX for {}", a.nvrtc_version, a.ptx_bytes,
                                     arch.empty() ? "NVRTC's default architecture" : "compute_" + arch);
    }
    level.steps.push_back(compile);

    if (!compiled) {
        kernel.reason = "nothing to launch: the compile failed";
    } else if (!ctx.driver_usable) {
        kernel.reason = "compiled, but cannot launch here: " + needs_gpu(ctx);
    } else if (!a.child.trouble().empty() && !a.threads) {
        kernel.reason = "libcuda: " + a.child.trouble();
        blame(kernel, ctx.snap, {}, "The driver hung or crashed while loading or running a tiny kernel.",
              "sudo dmesg | grep -i -E 'nvrm|xid' | tail");
    } else if (!a.failed_call.empty()) {
        const int rc = a.failed_result.value_or(-1);
        CheckOutcome error{
            CheckOutcome::Kind::error, "", a.failed_call, rc, a.failed_name.empty() ? cu_result_name(rc) : a.failed_name, ""};
        error.summary = fmt::format("{} failed: {} ({})", a.failed_call, error.name, rc);
        kernel.reason = error.summary;
        explain_cuda_error(kernel, ctx, error);
    } else if (a.wrong && *a.wrong > 0) {
        kernel.reason = fmt::format("{} of {} threads wrote a wrong value; the first at index {}: 0x{:08X}{}", *a.wrong,
                                    a.threads.value_or(0), a.first_wrong, a.first_wrong_value,
                                    a.first_wrong_value == driver::kPoison ? " (still the poison: that thread never ran)" : "");
        blame(kernel, ctx.snap, {}, "The GPU computed wrong results: a hardware fault, an overclock, or a driver bug.",
              "nvidia-smi -q -d ECC,CLOCK\nsudo dmesg | grep -i xid | tail");
    } else if (a.threads) {
        kernel.status = Status::pass;
        kernel.reason = fmt::format("all {} threads wrote their value (via {})", *a.threads, a.driver_library);
    } else {
        kernel.reason = "the launch gave no result";
        blame(kernel, ctx.snap, {}, "The driver did not finish the launch.", "");
    }
    level.steps.push_back(kernel);
    level.steps.emplace_back("cublas-gemm", "cuBLAS runs a 64×64 SGEMM that matches the CPU", Status::skip,
                             "cuBLAS is checked by the nvcc-built program; no nvcc is used here");
    return level;
}

}  // namespace

Level level2(Context& ctx) {
    Level level{2, "toolkit compiles and runs a kernel"};
    const snapshot::Toolkit* tk = ctx.options.compiler == "nvrtc" ? nullptr : toolkit_with_nvcc(ctx.snap);
    if (tk && ctx.host.is_rooted()) {
        level.steps.emplace_back("nvcc-compile", "nvcc compiles a kernel for this GPU", Status::skip,
                                 std::string(host::kNotRunInImage) + " (" + tk->nvcc_path + ")");
        return level;
    }
    if (tk) return nvcc_path(ctx, std::move(level), *tk);
    if (auto inert = driver::image_is_inert(ctx.host)) {  // NVRTC would be the image's library
        level.steps.emplace_back("nvrtc-compile", "NVRTC compiles the kernel to PTX for this GPU", Status::skip, *inert);
        return level;
    }
    if (ctx.options.compiler == "nvcc") {
        Step step{"nvcc-compile", "nvcc compiles a kernel for this GPU"};
        step.reason = "no toolkit with nvcc was found";
        blame(step, ctx.snap, {"toolkit-not-on-path", "cuda-symlink-dangling"}, "No CUDA toolkit with nvcc is installed.",
              "# install a CUDA toolkit, or: cudoctor verify --compiler nvrtc");
        level.steps.push_back(step);
        return level;
    }
    return nvrtc_path(ctx, std::move(level));
}

}  // namespace cudoctor::verify::detail
