// Level 1: the driver answers and sees the GPU. CUDA_VISIBLE_DEVICES, the driver API (libcuda:
// cuInit, its CUDA version, the devices and their deviceQuery facts) and NVML (libnvidia-ml).
#include <fmt/format.h>

#include "common/text.hpp"
#include "common/version.hpp"
#include "driver/driver_calls.hpp"
#include "driver/library_search.hpp"
#include "recipe/install.hpp"
#include "verify/causes.hpp"
#include "verify/levels.hpp"
#include "verify/visible_devices.hpp"

namespace cudoctor::verify::detail {
namespace {

std::string tried_text(const std::vector<std::string>& tried) {
    std::string out;
    for (const auto& t : tried) out += (out.empty() ? "" : "; ") + t;
    return out;
}

const char* kHangFix =
    "sudo dmesg | grep -i -E 'nvrm|xid' | tail   # what the kernel module says\n"
    "nvidia-smi                                   # does it hang too?\n"
    "sudo reboot                                  # a wedged driver is only reset by a reboot";

/// A step for a child that hung or crashed inside a driver library.
void blame_child(Step& step, const driver::ChildAnswer& child, std::string_view library, const snapshot::Snapshot& snap) {
    const bool hung = child.raw.end == host::IsolatedEnd::hung;
    step.reason = fmt::format("{}: {}", library, child.trouble());
    blame(step, snap, {"driver-library-mismatch"},
          hung ? fmt::format("The driver library never returned from {}: the kernel module is wedged (a GPU fallen off the bus, "
                             "Xid errors in dmesg) or /dev/nvidia* is blocked. Every CUDA program on this machine would hang the "
                             "same way; verify ran it in a child and killed it.",
                             child.in_flight.empty() ? "its calls" : child.in_flight)
               : fmt::format("The driver library crashed the process inside {}: user-space driver files from another "
                             "install than the kernel module, or a damaged library. Every CUDA program would crash the "
                             "same way; verify ran it in a child.",
                             child.in_flight.empty() ? "its calls" : child.in_flight),
          kHangFix);
}

Step no_driver_step(const Context& ctx, const driver::DriverApiAnswer& a) {
    Step step{"driver-api", "the driver API answers (libcuda.so.1: cuInit)"};
    step.reason = "no NVIDIA driver: libcuda.so.1 cannot be loaded (" + tried_text(a.tried) + ")";
    std::string cause, fix;
    if (ctx.snap.gpus.empty()) {
        cause =
            "No NVIDIA driver is installed (no libcuda.so.1, no /proc/driver/nvidia/version) and no NVIDIA GPU is on "
            "this machine's PCI bus (/sys/bus/pci/devices): nothing here can run CUDA. Compiling still works (level 2).";
        fix = "# use a machine (or a VM / container with GPU passthrough) that has an NVIDIA GPU; on it:\n" +
              recipe::driver_fix(ctx.snap, ctx.kb);
    } else {
        cause =
            "The GPU is there but the NVIDIA driver's user-space library libcuda.so.1 is not installed or not on the "
            "loader path, so no CUDA program can start.";
        fix = recipe::driver_fix(ctx.snap, ctx.kb);
    }
    blame(step, ctx.snap,
          {"nouveau-loaded", "secure-boot-blocks-module", "gpu-without-driver", "wsl-linux-driver-installed", "vm-without-gpu-passthrough"},
          cause, fix);
    return step;
}

Step init_failed_step(const Context& ctx, const driver::DriverApiAnswer& a, const driver::NvmlAnswer& nvml, const VisibleDevices& visible) {
    Step step{"driver-api", "the driver API answers (libcuda.so.1: cuInit)"};
    const int rc = *a.init_result;
    const std::string name = a.init_name.empty() ? cu_result_name(rc) : a.init_name;
    step.reason = fmt::format("cuInit(0) = {} ({}){} via {}", name, rc, a.init_text.empty() ? "" : ": " + a.init_text, a.library);
    std::string meaning = cu_result_meaning(rc);
    if (meaning.empty()) meaning = "the driver refused to initialise";
    meaning[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(meaning[0])));
    std::string fix = kHangFix;
    std::vector<std::string_view> rules;
    switch (rc) {
        case 34:
            fix = fmt::format(
                "# take the stubs folder ({}) off the loader path:\n"
                "export LD_LIBRARY_PATH=$(printf '%s' \"$LD_LIBRARY_PATH\" | tr ':' '\\n' | grep -v '/stubs' | paste -sd:)\n"
                "grep -rl stubs /etc/ld.so.conf.d/ && echo 'remove that line, then: sudo ldconfig'",
                host::dirname(a.library));
            break;
        case 100:
            if (visible.hides_all) {
                meaning = "CUDA_VISIBLE_DEVICES=" + visible.value + " hides every GPU: " + visible.problem;
                fix = "unset CUDA_VISIBLE_DEVICES   # or: export CUDA_VISIBLE_DEVICES=0";
            } else if (nvml.device_count && *nvml.device_count > 0) {
                meaning = fmt::format("NVML sees {} GPU(s) but CUDA sees none: {}", *nvml.device_count, meaning);
                fix = "nvidia-smi -q -d COMPUTE   # a GPU in Prohibited compute mode is invisible to CUDA\n" + fix;
            } else {
                rules = {"vm-without-gpu-passthrough"};
            }
            break;
        case 803:
            rules = {"driver-library-mismatch"};
            fix = "sudo reboot   # loads the kernel module that matches the installed libraries";
            break;
        case 804:
            fix =
                "ls /usr/local/cuda*/compat 2>/dev/null   # the forward-compatibility libcuda\n"
                "# take that folder off LD_LIBRARY_PATH, or remove the cuda-compat package:\n"
                "sudo apt-get remove 'cuda-compat-*'";
            break;
        case 999: fix = "ls -l /dev/nvidia-uvm || sudo modprobe nvidia_uvm\n" + fix; break;
        default: break;
    }
    blame(step, ctx.snap, rules, meaning + ".", fix);
    return step;
}

std::string device_line(const driver::DriverDevice& d) {
    std::string line = d.name.empty() ? "(no name)" : d.name;
    if (d.cc_major >= 0) line += fmt::format(" · compute capability {}.{}", d.cc_major, d.cc_minor);
    if (d.multiprocessors) line += fmt::format(" · {} SMs", d.multiprocessors);
    if (d.memory_bytes) line += " · " + gib(d.memory_bytes);
    if (d.clock_khz) line += fmt::format(" · {} MHz", d.clock_khz / 1000);
    if (d.memory_clock_khz) line += fmt::format(" · memory {} MHz × {}-bit", d.memory_clock_khz / 1000, d.bus_width_bits);
    return line;
}

/// Whether the driver runs every CUDA the installed toolkits and frameworks were built for.
Step driver_version_step(Context& ctx, int driver_cuda) {
    Step step{"driver-version", "the driver is new enough for the installed CUDA"};
    const std::string have = driver::cuda_version_text(driver_cuda);
    auto have_v = Version::parse(have);
    struct Need {
        std::string what;
        Version cuda;
    };
    std::vector<Need> needs;
    for (const auto& tk : ctx.snap.toolkits)
        if (auto v = Version::parse(tk.version)) needs.push_back({"CUDA " + tk.version + " (" + tk.path + ")", *v});
    for (const auto& fw : ctx.snap.frameworks)
        if (fw.cuda && !fw.cuda->empty())
            if (auto v = Version::parse(*fw.cuda))
                needs.push_back({fw.name + " " + fw.version + " (built with CUDA " + *fw.cuda + ")", *v});
    step.details.push_back({"driver runs CUDA", "≤ " + have});
    if (!have_v) {
        step.status = Status::skip;
        step.reason = "cuDriverGetVersion gave no version";
        return step;
    }
    std::vector<std::string> too_new, compat;
    std::optional<Version> highest;
    for (const auto& n : needs) {
        const Version need(std::vector<int>{n.cuda.major(), n.cuda.minor()});
        if (need <= *have_v) continue;
        if (need.major() == have_v->major()) compat.push_back(n.what);
        else too_new.push_back(n.what);
        if (!highest || need > *highest) highest = need;
    }
    if (too_new.empty()) {
        step.status = Status::pass;
        step.reason = needs.empty() ? "the driver runs CUDA ≤ " + have + " (no toolkit or framework to compare with)"
                                    : "the driver runs CUDA ≤ " + have + ", enough for every toolkit and framework found";
        if (!compat.empty())
            step.reason += "; " + report::join(compat, ", ") + " run through minor-version compatibility (PTX JIT of newer code fails)";
        return step;
    }
    step.reason = fmt::format("insufficient driver: it runs CUDA ≤ {}, but {} need(s) CUDA {}", have, report::join(too_new, ", "),
                              highest ? highest->str() : "newer");
    std::optional<int> branch;
    if (highest)
        if (auto min = ctx.kb.min_driver_for(*highest)) branch = min->major();
    blame(step, ctx.snap, {"driver-too-old-for-toolkit", "driver-too-old-for-framework"},
          fmt::format("Programs built with a newer CUDA than the driver runs fail at their first CUDA call with "
                      "cudaErrorInsufficientDriver (35): \"CUDA driver version is insufficient for CUDA runtime version\"{}.",
                      branch ? fmt::format("; CUDA {} needs driver ≥ {}", highest->str(), *branch) : ""),
          recipe::driver_fix(ctx.snap, ctx.kb, branch));
    return step;
}

Step nvml_step(const Context& ctx, const Expected<driver::NvmlAnswer>& answer, bool libcuda_missing) {
    Step step{"nvml", "NVML answers (libnvidia-ml.so.1: nvmlInit_v2, what nvidia-smi uses)"};
    if (!answer) {
        step.status = Status::fail;
        step.reason = "could not start a child process: " + answer.error().message;
        return step;
    }
    const driver::NvmlAnswer& a = *answer;
    if (a.library.empty()) {
        step.reason = "libnvidia-ml.so.1 cannot be loaded (" + tried_text(a.tried) + ")";
        if (libcuda_missing) {
            step.status = Status::fail;
            step.cause = "No NVIDIA driver (see the driver-API step).";
        } else {
            blame(step, ctx.snap, {},
                  "libcuda loads but NVML does not: a partial driver install, or a container started without "
                  "the utility capability (NVIDIA_DRIVER_CAPABILITIES=compute,utility).",
                  "ls -l /usr/lib/x86_64-linux-gnu/libnvidia-ml.so*   # reinstall the driver's utils package if missing");
        }
        return step;
    }
    if (!a.child.trouble().empty() && !a.init_result) {
        blame_child(step, a.child, "libnvidia-ml", ctx.snap);
        return step;
    }
    if (!a.init_result) {
        step.status = Status::fail;
        step.reason = "nvmlInit_v2 is missing from " + a.library;
        return step;
    }
    if (*a.init_result != 0) {
        const int rc = *a.init_result;
        step.reason = fmt::format("nvmlInit_v2() = {} ({}){}", nvml_result_name(rc), rc, a.init_text.empty() ? "" : ": " + a.init_text);
        if (rc == 18) {
            blame(step, ctx.snap, {"driver-library-mismatch"},
                  "Driver/library version mismatch: the user-space driver libraries were upgraded (NVML " + a.library +
                      ") while the old kernel module is still loaded, so nvidia-smi says \"Failed to initialize NVML: "
                      "Driver/library version mismatch\" and CUDA programs fail until the module matches.",
                  "sudo reboot   # loads the kernel module the packages installed\n"
                  "# or without a reboot (stops everything using the GPU):\n"
                  "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia && sudo modprobe nvidia_uvm");
        } else if (rc == 9) {
            blame(step, ctx.snap, {"nouveau-loaded", "secure-boot-blocks-module", "gpu-without-driver"},
                  "The nvidia kernel module is not loaded: the libraries are installed but there is no driver underneath.",
                  "sudo modprobe nvidia && sudo modprobe nvidia_uvm\nsudo dmesg | grep -i -E 'nvidia|nvrm' | tail");
        } else {
            blame(step, ctx.snap, {}, "NVML could not initialise the driver.", kHangFix);
        }
        return step;
    }
    step.status = Status::pass;
    step.reason = fmt::format("driver {}{}, {} GPU(s)", a.driver_version.empty() ? "(version unknown)" : a.driver_version,
                              a.cuda_version ? ", runs CUDA ≤ " + driver::cuda_version_text(*a.cuda_version) : "",
                              a.device_count ? std::to_string(*a.device_count) : "?");
    step.details.push_back({"library", a.library});
    for (std::size_t i = 0; i < a.devices.size(); ++i) {
        const auto& d = a.devices[i];
        std::string line = d.name;
        if (d.cc_major >= 0) line += fmt::format(" · compute capability {}.{}", d.cc_major, d.cc_minor);
        if (d.memory_total) line += " · " + gib(d.memory_total);
        if (!d.uuid.empty()) line += " · " + d.uuid;
        step.details.push_back({fmt::format("GPU {}", i), line});
    }
    if (a.device_count && *a.device_count == 0) {
        blame(step, ctx.snap, {"vm-without-gpu-passthrough"},
              "The driver is loaded but NVML counts no GPU: the GPU fell off the bus "
              "(Xid 79 in dmesg) or is not passed through to this machine.",
              kHangFix);
        step.reason = "nvmlDeviceGetCount_v2 = 0: the driver sees no GPU";
    }
    return step;
}

}  // namespace

Level level1(Context& ctx) {
    Level level{1, "driver and GPU visible"};
    const auto visible = check_visible_devices(ctx.host.env("CUDA_VISIBLE_DEVICES"));
    level.steps.push_back(visible_devices_step(visible));

    if (auto inert = driver::image_is_inert(ctx.host)) {
        ctx.driver_trouble = *inert;
        level.steps.emplace_back("driver-api", "the driver API answers (libcuda.so.1: cuInit)", Status::skip, *inert);
        level.steps.emplace_back("driver-version", "the driver is new enough for the installed CUDA", Status::skip, *inert);
        level.steps.emplace_back("devices", "GPUs visible to CUDA (deviceQuery facts from the driver API)", Status::skip, *inert);
        level.steps.emplace_back("nvml", "NVML answers (libnvidia-ml.so.1: nvmlInit_v2, what nvidia-smi uses)", Status::skip, *inert);
        return level;
    }
    const auto cuda_candidates = driver::driver_library_candidates(ctx.host, "libcuda.so.1");
    const auto nvml_candidates = driver::driver_library_candidates(ctx.host, "libnvidia-ml.so.1");
    auto cuda = driver::query_driver_api(cuda_candidates, ctx.options.call_timeout);
    auto nvml = driver::query_nvml(nvml_candidates, ctx.options.call_timeout);

    Step api{"driver-api", "the driver API answers (libcuda.so.1: cuInit)"};
    bool libcuda_missing = false;
    if (!cuda) {
        api.status = Status::fail;
        api.reason = "could not start a child process: " + cuda.error().message;
    } else if (cuda->library.empty() && cuda->child.trouble().empty()) {
        api = no_driver_step(ctx, *cuda);
        libcuda_missing = true;
    } else if (!cuda->init_result && !cuda->child.trouble().empty()) {
        blame_child(api, cuda->child, "libcuda", ctx.snap);
    } else if (!cuda->init_result) {
        api.status = Status::fail;
        api.reason = cuda->library + " is not a driver library: it lacks " + report::join(cuda->missing, ", ");
        api.cause = "A file named libcuda.so.1 without the driver API was found first on the loader path.";
    } else if (*cuda->init_result != 0) {
        api = init_failed_step(ctx, *cuda, nvml ? *nvml : driver::NvmlAnswer{}, visible);
    } else {
        api.status = Status::pass;
        api.reason = "cuInit(0) = CUDA_SUCCESS via " + cuda->library;
        ctx.driver_library = cuda->library;
        api.details.push_back({"library", cuda->library});
    }
    if (cuda && cuda->driver_version) api.details.push_back({"cuDriverGetVersion", std::to_string(*cuda->driver_version)});
    const bool init_ok = api.status == Status::pass;
    level.steps.push_back(api);
    if (api.status == Status::fail) ctx.driver_trouble = libcuda_missing ? "no NVIDIA driver (libcuda.so.1 cannot be loaded)" : api.reason;

    // The driver's CUDA version: asked even when cuInit failed (it needs no cuInit).
    if (cuda && cuda->driver_version && !cuda->library.empty()) {
        ctx.driver_cuda = *cuda->driver_version;
        level.steps.push_back(driver_version_step(ctx, *cuda->driver_version));
    } else {
        level.steps.emplace_back("driver-version", "the driver is new enough for the installed CUDA", Status::skip,
                                 "no driver version: libcuda did not answer");
    }

    Step devices{"devices", "GPUs visible to CUDA (deviceQuery facts from the driver API)"};
    if (!init_ok) {
        devices.reason = "cuInit failed, so no device can be listed";
    } else if (cuda->child.trouble().empty() == false) {
        blame_child(devices, cuda->child, "libcuda", ctx.snap);
    } else if (!cuda->device_count || *cuda->device_count == 0) {
        devices.reason = "cuDeviceGetCount = 0";
        blame(devices, ctx.snap, {}, "cuInit succeeded but no GPU is visible to CUDA.", kHangFix);
    } else {
        devices.status = Status::pass;
        devices.reason = fmt::format("{} GPU(s)", *cuda->device_count);
        for (std::size_t i = 0; i < cuda->devices.size(); ++i)
            devices.details.push_back({fmt::format("GPU {}", i), device_line(cuda->devices[i])});
        const auto& first = cuda->devices.front();
        if (first.cc_major >= 0) ctx.compute_capability = fmt::format("{}.{}", first.cc_major, first.cc_minor);
        ctx.driver_usable = true;
    }
    if (devices.status == Status::fail && ctx.driver_trouble.empty()) ctx.driver_trouble = devices.reason;
    level.steps.push_back(devices);

    level.steps.push_back(nvml_step(ctx, nvml, libcuda_missing));
    return level;
}

}  // namespace cudoctor::verify::detail
