// Tie-ins of the driver-level causes: not loaded, library mismatch, too old, libcuda, WSL.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "explain/tie_in_util.hpp"
#include "recipe/install.hpp"

namespace cudoctor::explain::detail {

namespace {

std::string gpu_list(const snapshot::Snapshot& snap) {
    std::string out;
    for (const auto& g : snap.gpus) {
        if (!out.empty()) out += ", ";
        out += g.name.empty() ? g.pci_device_id : g.name;
        if (!g.compute_capability.empty()) out += " (compute capability " + g.compute_capability + ")";
    }
    return out;
}

bool module_loaded(const snapshot::Snapshot& snap) { return !snap.driver.kernel_module_version.empty(); }

}  // namespace

void tie_driver_not_loaded(Cause& c, const snapshot::Snapshot& snap, const kb::Kb& kb) {
    const auto& d = snap.driver;
    if (module_loaded(snap)) {
        contradicts(c, fmt::format("the nvidia kernel module {} is loaded on this machine (/proc/driver/nvidia/version): "
                                   "the error came from elsewhere (a container started without --gpus, another machine)",
                                   d.kernel_module_version));
        return;
    }
    confirms(c, "no nvidia kernel module is loaded on this machine (no /proc/driver/nvidia/version)");
    if (snap.platform.wsl) {
        context(c, "this is WSL2: the driver is the Windows one, reached through /usr/lib/wsl/lib");
        set_fix(c, {"Update the NVIDIA driver on Windows (not inside WSL), then run: wsl --shutdown"});
        return;
    }
    if (snap.gpus.empty()) {
        confirms(c, "no NVIDIA GPU is on this machine's PCI bus (" +
                        (snap.platform.virtualization.empty()
                             ? std::string("a machine without one")
                             : "a " + snap.platform.virtualization + " virtual machine without GPU passthrough") +
                        "): CUDA cannot work here");
        set_fix(c, {"Run on a machine (or VM with passthrough) that has an NVIDIA GPU, or use the CPU"});
        return;
    }
    context(c, "GPU: " + gpu_list(snap));
    std::vector<std::string> fix;
    for (const auto& g : snap.gpus) {
        if (g.bound_driver == "nouveau") {
            confirms(c, "nouveau (the open-source driver) holds the GPU " + g.bus_id);
            fix.emplace_back(
                "echo -e 'blacklist nouveau\\noptions nouveau modeset=0' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf\nsudo update-initramfs -u");
            break;
        }
    }
    if (snap.platform.secure_boot == "enabled" && !d.packages.empty()) {
        confirms(c, "Secure Boot is enabled and a driver is installed: an unsigned nvidia module is refused at load");
        fix.emplace_back("sudo mokutil --import /var/lib/shim-signed/mok/MOK.der   # enrol the DKMS signing key, then reboot and confirm it");
    }
    for (const auto& m : snap.platform.dkms) {
        if (m.module == "nvidia" && !m.built_for_running_kernel) {
            confirms(c, fmt::format("DKMS built nvidia {} for kernel {}, not for the running kernel {}", m.version, m.kernel,
                                    snap.platform.kernel));
            fix.push_back(recipe::as_script(recipe::kernel_module_rebuild(recipe::distro_of(snap), snap.platform.kernel, kb)));
            break;
        }
    }
    if (d.packages.empty()) confirms(c, "no NVIDIA driver package is installed");
    else context(c, "installed driver packages: " + d.packages.front() + (d.packages.size() > 1 ? " …" : ""));
    fix.push_back(recipe::driver_fix(snap, kb));
    set_fix(c, fix);
}

void tie_driver_lib_mismatch(Cause& c, const snapshot::Snapshot& snap, const kb::Kb&) {
    const auto& d = snap.driver;
    if (!c.value("nvml_version").empty()) context(c, "the log: NVML library version " + c.value("nvml_version"));
    if (!c.value("kernel_version").empty())
        context(c, "the log: kernel module " + c.value("kernel_version") + ", libraries " + c.value("client_version"));
    if (!module_loaded(snap)) {
        context(c, "no nvidia kernel module is loaded here, so this machine shows no mismatch now");
        return;
    }
    std::vector<std::string> others;
    for (const auto& v : d.user_space_versions)
        if (v != d.kernel_module_version) others.push_back(v);
    if (others.empty() && d.user_space_versions.empty()) {
        context(c, "kernel module " + d.kernel_module_version + " is loaded; no user-space driver library was found to compare");
        return;
    }
    if (others.empty()) {
        contradicts(c, "the kernel module and the user-space libraries are both " + d.kernel_module_version +
                           " here (a reboot fixed it, or the error came from another machine)");
        return;
    }
    confirms(c, fmt::format("the loaded kernel module is {} but the user-space libraries are {}", d.kernel_module_version,
                            fmt::join(others, ", ")));
    if (!d.package_events.empty()) {
        const auto& e = d.package_events.back();
        context(c, fmt::format("last driver package change: {} {} {} → {}{} ({})", e.when, e.action, e.package, e.old_version,
                               e.new_version.empty() ? "" : " " + e.new_version, e.by.empty() ? e.source : e.by));
    }
    set_fix(c, {"sudo reboot   # loads the kernel module of the installed libraries (" + others.front() + ")",
                "# to keep it from happening again: sudo apt-mark hold $(dpkg-query -W -f='${Package}\\n' '*nvidia*' | grep -E '[0-9]{3}')"});
}

void tie_driver_too_old(Cause& c, const snapshot::Snapshot& snap, const kb::Kb& kb) {
    const auto& d = snap.driver;
    std::optional<Version> log_driver_cuda;
    if (auto code = cuda_from_code(c.value("driver_cuda_code"))) log_driver_cuda = code;
    else if (auto v = Version::parse(c.value("driver_cuda"))) log_driver_cuda = v;
    if (log_driver_cuda) context(c, "the log: the driver there supports CUDA up to " + log_driver_cuda->str());
    if (auto rt = Version::parse(c.value("runtime_cuda"))) context(c, "the log: the program brings CUDA " + rt->str());
    if (!module_loaded(snap)) {
        context(c, "no nvidia kernel module is loaded on this machine");
        return;
    }
    const auto max = Version::parse(d.max_cuda);
    context(c, "driver " + d.kernel_module_version + " here" + (max ? " runs CUDA up to " + max->str() : std::string()));
    if (!max) return;
    if (log_driver_cuda && log_driver_cuda->truncated(2) == max->truncated(2))
        confirms(c, "this machine's driver has the same limit as in the log (CUDA " + max->str() + ")");
    // The CUDA builds found here that need more than the driver gives.
    std::optional<Version> needed;
    bool any_build = false;
    for (const auto& f : snap.frameworks) {
        if (!f.cuda) continue;
        auto fc = Version::parse(*f.cuda);
        if (!fc) continue;
        any_build = true;
        if (fc->truncated(2) > max->truncated(2)) {
            confirms(c, fmt::format("{} {} is built for CUDA {}, newer than this driver's {}", f.name, f.version, fc->str(), max->str()));
            if (!needed || *fc > *needed) needed = fc;
        }
    }
    if (auto rt = Version::parse(c.value("runtime_cuda")); rt && rt->truncated(2) > max->truncated(2)) needed = rt;
    if (!needed) {
        if (any_build) contradicts(c, "every CUDA build of a framework found here runs on this driver (CUDA up to " + max->str() + ")");
        return;
    }
    std::vector<std::string> fix;
    auto min_driver = kb.min_driver_for(*needed);
    fix.push_back(recipe::driver_fix(snap, kb, min_driver ? std::optional<int>(min_driver->major()) : std::nullopt));
    for (const auto& f : snap.frameworks) {
        if (f.name != "torch" || !f.cuda) continue;
        auto tv = Version::parse(f.version);
        if (!tv) continue;
        std::optional<kb::TorchWheel> best;
        for (const auto& w : kb.torch_wheels(*tv))
            if (w.cuda.truncated(2) <= max->truncated(2) && (!best || w.cuda > best->cuda)) best = w;
        if (best)
            fix.push_back(
                fmt::format("# or keep this driver and install the {} wheel of torch {}: pip install torch=={} --index-url "
                            "https://download.pytorch.org/whl/{}",
                            best->variant, tv->str(), tv->str(), best->variant));
    }
    set_fix(c, fix);
}

void tie_missing_libcuda(Cause& c, const snapshot::Snapshot& snap, const kb::Kb& kb) {
    const std::string soname = c.value("soname").empty() ? "libcuda.so.1" : c.value("soname");
    const auto& cache = snap.environment.loader_cache;
    auto in_cache = std::find_if(cache.begin(), cache.end(), [&](const auto& e) { return e.soname == soname; });
    if (in_cache != cache.end()) {
        contradicts(c, "the loader cache here has " + soname + " → " + in_cache->path);
        return;
    }
    const bool has_libcuda =
        std::any_of(snap.driver.libraries.begin(), snap.driver.libraries.end(), [](const auto& l) { return l.name == "libcuda.so"; });
    if (snap.platform.wsl) {
        confirms(c, "this is WSL2: libcuda lives in /usr/lib/wsl/lib, and " + soname + " is not in the loader cache");
        set_fix(c, {"export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH",
                    "# for good: echo /usr/lib/wsl/lib | sudo tee /etc/ld.so.conf.d/ld.wsl.conf && sudo ldconfig"});
        return;
    }
    if (!has_libcuda) {
        confirms(c, "no libcuda.so.* is on this machine: no NVIDIA driver is installed");
        set_fix(c, {recipe::driver_fix(snap, kb)});
        return;
    }
    const auto& lib =
        *std::find_if(snap.driver.libraries.begin(), snap.driver.libraries.end(), [](const auto& l) { return l.name == "libcuda.so"; });
    confirms(c, "the driver's library is at " + lib.path + " but the loader cache has no " + soname +
                    (soname == "libcuda.so" ? " (the unversioned name comes with the driver's -dev package)" : ""));
    set_fix(c, {"sudo ldconfig   # rebuild the loader cache",
                soname == "libcuda.so" ? "sudo ln -s " + lib.path + " $(dirname " + lib.path + ")/libcuda.so && sudo ldconfig"
                                       : "ls -l $(dirname " + lib.path + ")/libcuda.so*"});
}

void tie_wsl(Cause& c, const snapshot::Snapshot& snap, const kb::Kb&) {
    if (!snap.platform.wsl) {
        contradicts(c, "this machine is not WSL2 (the log came from a WSL2 machine)");
        return;
    }
    confirms(c, "this machine is WSL2 (kernel " + snap.platform.kernel + ")");
    if (!snap.driver.packages.empty()) {
        confirms(c, "a Linux driver package is installed inside WSL2: " + snap.driver.packages.front());
        c.fix.insert(c.fix.begin(), "sudo apt-get remove --purge '^nvidia-.*' '^libnvidia-.*' cuda-drivers   # WSL2 uses the Windows driver");
    }
}

}  // namespace cudoctor::explain::detail
