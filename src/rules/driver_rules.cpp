// GPU and driver rules: no driver, nouveau, Secure Boot, kernel/user-space mismatch, a driver too
// old for a toolkit or a framework, nvidia-smi's CUDA Version, WSL2 and virtual machines.
#include <algorithm>

#include <fmt/format.h>

#include "common/text.hpp"
#include "host/resources.hpp"
#include "kb/toolkit_release.hpp"
#include "recipe/install.hpp"
#include "rules/rule_util.hpp"

namespace cudoctor::rules::detail {
namespace {

using snapshot::Evidence;
using snapshot::Finding;
using snapshot::Layer;
using snapshot::Severity;
using snapshot::Snapshot;

bool has_module(const Snapshot& s, std::string_view name) {
    return std::find(s.driver.loaded_modules.begin(), s.driver.loaded_modules.end(), name) != s.driver.loaded_modules.end();
}

std::string gpu_names(const Snapshot& s) {
    std::vector<std::string> names;
    for (const auto& g : s.gpus) names.push_back((g.name.empty() ? g.pci_device_id : g.name) + " at " + g.bus_id);
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::vector<Evidence> gpu_evidence(const Snapshot& s) {
    std::vector<Evidence> ev;
    for (const auto& g : s.gpus)
        for (const auto& e : g.evidence) ev.push_back(e);
    return ev;
}

std::vector<Finding> gpu_without_driver(const Snapshot& s, const kb::Kb& kb) {
    if (s.gpus.empty() || !s.driver.kernel_module_version.empty() || s.platform.wsl) return {};
    auto ev = gpu_evidence(s);
    ev.push_back({"/proc/driver/nvidia/version", "absent: no nvidia kernel module is loaded"});
    std::string fix;
    if (!s.driver.user_space_versions.empty()) {
        fix = fmt::format(
            "# the {} driver libraries are installed but the module is not loaded:\n"
            "sudo modprobe nvidia && sudo modprobe nvidia_uvm\n"
            "sudo dmesg | grep -i -E 'nvidia|nvrm' | tail   # why it did not load, if modprobe fails",
            s.driver.user_space_versions.back());
    } else {
        fix = recipe::driver_fix(s, kb);
    }
    return {finding(fmt::format("NVIDIA GPU without a driver: {}", gpu_names(s)),
                    "The GPU is on the PCI bus but no nvidia kernel module is loaded, so nothing CUDA can run: nvidia-smi "
                    "says \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\" and "
                    "frameworks report no GPU.",
                    fix, ev)};
}

std::vector<Finding> nouveau_loaded(const Snapshot& s, const kb::Kb& kb) {
    const bool bound = std::any_of(s.gpus.begin(), s.gpus.end(), [](const auto& g) { return g.bound_driver == "nouveau"; });
    if (!bound && !has_module(s, "nouveau")) return {};
    std::vector<Evidence> ev;
    if (has_module(s, "nouveau")) ev.push_back({"/proc/modules", "nouveau is loaded"});
    for (const auto& g : s.gpus)
        if (g.bound_driver == "nouveau") ev.push_back({"/sys/bus/pci/devices/" + g.bus_id + "/driver", "-> nouveau"});
    // The driver install blacklists nouveau first (driver_need sees it holding the GPU); with the
    // driver already installed, the blacklist and a reboot are all it takes.
    const std::string fix = s.driver.user_space_versions.empty()
                                ? recipe::driver_fix(s, kb)
                                : recipe::as_script(recipe::nouveau_blacklist(recipe::distro_of(s))) + "\nsudo reboot";
    return {finding("The open-source nouveau driver holds the GPU",
                    "nouveau and the NVIDIA driver cannot both drive the GPU; while nouveau is loaded the nvidia module "
                    "cannot bind and CUDA has no device. Blacklisting only takes effect once the initramfs is rebuilt "
                    "and the machine rebooted.",
                    fix, ev)};
}

/// The nvidia DKMS modules (nvidia, nvidia-open, nvidia-current) of the snapshot.
bool is_nvidia_dkms(const snapshot::DkmsModule& m) { return m.module.starts_with("nvidia"); }

std::vector<Finding> driver_module_not_built_for_kernel(const Snapshot& s, const kb::Kb& kb) {
    if (s.gpus.empty() || !s.driver.kernel_module_version.empty() || s.platform.wsl || s.platform.kernel.empty()) return {};
    std::vector<const snapshot::DkmsModule*> nvidia;
    for (const auto& m : s.platform.dkms)
        if (is_nvidia_dkms(m)) nvidia.push_back(&m);
    if (nvidia.empty() || std::any_of(nvidia.begin(), nvidia.end(), [](const auto* m) { return m->built_for_running_kernel; })) return {};
    const auto& k = s.platform.kernel;
    std::vector<Evidence> ev{{"/proc/sys/kernel/osrelease", "running kernel " + k}};
    std::string error;
    for (const auto* m : nvidia) {
        ev.push_back({"/var/lib/dkms/" + m->module + "/" + m->version,
                      m->kernel.empty() ? "added, never built" : "built for " + m->kernel + ", not for " + k});
        if (!m->build_error.empty() && error.empty()) {
            error = m->build_error;
            ev.push_back({"/var/lib/dkms/" + m->module + "/" + m->version + "/build/make.log", m->build_error});
        }
    }
    ev.push_back({"/proc/driver/nvidia/version", "absent: the module is not loaded"});
    auto commands = recipe::kernel_module_rebuild(recipe::distro_of(s), k, kb);
    if (!error.empty())
        commands.insert(commands.begin(),
                        "# the last build failed (make.log): " + error + "\n# mend that first (a compiler or headers mismatch), then:");
    return {finding(fmt::format("The nvidia module was never built for the running kernel {}", k),
                    "DKMS builds the nvidia module for each kernel when the kernel and its headers are installed. This kernel "
                    "came without its headers, or the build failed, so it booted without the driver: `modprobe nvidia` "
                    "cannot load a module that was never built, and nvidia-smi cannot reach the driver.",
                    recipe::as_script(commands), ev)};
}

std::vector<Finding> secure_boot_blocks_module(const Snapshot& s, const kb::Kb&) {
    if (s.platform.secure_boot != "enabled" || !s.driver.kernel_module_version.empty() || s.gpus.empty()) return {};
    // Built for the running kernel and still not loaded: the signature. (Not built for it at all
    // is driver-module-not-built-for-kernel.)
    const auto built = std::find_if(s.platform.dkms.begin(), s.platform.dkms.end(),
                                    [](const auto& m) { return !m.kernel.empty() && m.built_for_running_kernel; });
    if (built == s.platform.dkms.end()) return {};
    return {finding(fmt::format("Secure Boot keeps the DKMS-built nvidia {} module from loading", built->version),
                    "With Secure Boot on, the kernel loads only signed modules; the nvidia module DKMS built is signed with "
                    "a machine key (MOK) that is not enrolled, so modprobe fails with \"Key was rejected by service\".",
                    "sudo mokutil --import /var/lib/dkms/mok.pub   # choose a one-time password\n"
                    "sudo reboot   # in the blue MOK manager: Enroll MOK → Continue → enter the password\n"
                    "# or turn Secure Boot off in the firmware settings",
                    {{"/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", "enabled"},
                     {"/var/lib/dkms/" + built->module + "/" + built->version + "/" + built->kernel, "module built"},
                     {"/proc/driver/nvidia/version", "absent: the module is not loaded"}})};
}

std::vector<Finding> driver_library_mismatch(const Snapshot& s, const kb::Kb&) {
    const auto& d = s.driver;
    if (d.kernel_module_version.empty() || d.user_space_versions.empty()) return {};
    std::vector<std::string> other;
    for (const auto& v : d.user_space_versions)
        if (v != d.kernel_module_version) other.push_back(v);
    if (other.empty()) return {};
    std::vector<Evidence> ev = {{"/proc/driver/nvidia/version", "kernel module " + d.kernel_module_version}};
    for (const auto& lib : d.libraries)
        if (!lib.version.empty() && lib.version != d.kernel_module_version) ev.push_back({lib.path, "user space " + lib.version});
    std::string by;
    for (const auto& e : d.package_events) {
        if (e.action == "remove" || e.action == "purge") continue;
        ev.push_back({e.source, fmt::format("{} {} {}{}{}", e.when, e.action, e.package,
                                            e.new_version.empty() ? "" : " " + e.old_version + " → " + e.new_version,
                                            e.by.empty() ? "" : " by " + e.by)});
        if (!e.by.empty()) by = e.by;
    }
    std::string fix = fmt::format(
        "sudo reboot   # loads the {} module the packages installed\n"
        "# or without a reboot (stops everything using the GPU):\n"
        "sudo systemctl isolate multi-user.target\n"
        "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia\n"
        "sudo modprobe nvidia && sudo modprobe nvidia_uvm\n"
        "sudo systemctl isolate graphical.target",
        other.back());
    if (by.find("unattended-upgrade") != std::string::npos)
        fix +=
            "\n# unattended-upgrades did this: keep it off the driver with\n"
            "# Unattended-Upgrade::Package-Blacklist { \"nvidia-\"; \"libnvidia-\"; }; in /etc/apt/apt.conf.d/50unattended-upgrades";
    return {finding(fmt::format("Driver/library version mismatch: kernel module {} but user-space libraries {}", d.kernel_module_version,
                                other.back()),
                    "The driver packages were replaced while the old kernel module stayed loaded (no reboot since). "
                    "nvidia-smi says \"Failed to initialize NVML: Driver/library version mismatch\" and CUDA programs "
                    "fail to initialise until the module matches the libraries.",
                    fix, ev)};
}

std::string compat_why(int major, const Version& floor) {
    return fmt::format(
        "CUDA {}.x minor-version compatibility lets programs built with any {}.x toolkit run on a driver ≥ {}, but "
        "PTX JIT of newer code and APIs newer than the driver fail (CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "
        "cudaErrorCallRequiresNewerDriver).",
        major, major, floor.str());
}

/// The driver that decides what runs, and which of Table 3's columns judges it: the Linux
/// driver, or under WSL2 (no Linux driver) the Windows one, whose numbers differ (CUDA 12.4:
/// 550.54.14 on Linux, 551.61 on Windows).
struct JudgedDriver {
    Version version;
    kb::DriverOs os = kb::DriverOs::linux_driver;
    std::string label() const { return (os == kb::DriverOs::windows_driver ? "Windows driver " : "Driver ") + version.str(); }
};

std::optional<JudgedDriver> judged_driver(const Snapshot& s) {
    if (auto v = driver_version(s)) return JudgedDriver{*v, kb::DriverOs::linux_driver};
    if (auto w = Version::parse(s.driver.windows_version)) return JudgedDriver{*w, kb::DriverOs::windows_driver};
    return std::nullopt;
}

std::vector<Finding> driver_too_old_for_toolkit(const Snapshot& s, const kb::Kb& kb) {
    const auto judged = judged_driver(s);
    if (!judged) return {};
    const auto* dv = &judged->version;
    std::vector<Finding> out;
    for (const auto& tk : s.toolkits) {
        if (!is_system_toolkit(tk)) continue;
        auto tv = Version::parse(tk.version);
        if (!tv) continue;
        // Compare releases with the release table: the toolkit's release, or the most lenient of
        // the releases its component versions shipped in (nvcc 12.6.77 is 12.6.2, not 12.6.3).
        auto min = kb::min_driver_for(kb, tk, judged->os);
        if (!min || *dv >= *min) continue;
        auto floor = kb.minor_compat_floor(tv->major(), judged->os);
        const std::string release = kb::release_label(kb, tk);
        std::vector<Evidence> ev = {{"driver", judged->label()},
                                    {tk.path, "CUDA " + (release.empty() || release == tk.version ? tk.version
                                                                                                  : release + " (nvcc " + tk.version + ")")},
                                    {"kb:cuda_driver.tsv", "needs ≥ " + min->str()}};
        const std::string fix = recipe::driver_fix(s, kb, min->major());
        if (floor && *dv >= *floor) {
            out.push_back(finding(fmt::format("{} is below {}'s minimum {} (minor-version compatibility applies)", judged->label(),
                                              toolkit_label(tk), min->str()),
                                  compat_why(tv->major(), *floor), fix, ev, Severity::warning));
        } else {
            out.push_back(finding(fmt::format("{} is too old for {}: it needs ≥ {}", judged->label(), toolkit_label(tk),
                                              floor ? floor->str() : min->str()),
                                  fmt::format("This driver runs CUDA ≤ {}; programs built with this toolkit fail with "
                                              "\"CUDA driver version is insufficient for CUDA runtime version\".",
                                              s.driver.max_cuda.empty() ? "an older release" : s.driver.max_cuda),
                                  fix, ev));
        }
    }
    return out;
}

std::vector<Finding> driver_too_old_for_framework(const Snapshot& s, const kb::Kb& kb) {
    const auto judged = judged_driver(s);
    if (!judged) return {};
    const auto* dv = &judged->version;
    std::vector<Finding> out;
    for (const auto& fw : s.frameworks) {
        if (!fw.cuda || fw.cuda->empty()) continue;
        auto cv = Version::parse(*fw.cuda);
        if (!cv) continue;
        auto floor = kb.minor_compat_floor(cv->major(), judged->os);
        auto min = kb.min_driver_for(*cv, judged->os);
        std::vector<Evidence> ev = {{"driver", judged->label()}, {fw.python, fw.name + " " + fw.version + " built with CUDA " + *fw.cuda}};
        if (floor ? *dv < *floor : (min && *dv < *min)) {
            const Version need = floor ? *floor : *min;
            out.push_back(finding(fmt::format("{} is too old for {} {} (CUDA {} needs ≥ {})", judged->label(), fw.name, fw.version,
                                              *fw.cuda, need.str()),
                                  fmt::format("{} brings its own CUDA {} runtime, which needs a newer driver: it fails with "
                                              "\"CUDA driver version is insufficient for CUDA runtime version\" "
                                              "(torch.cuda.is_available() is False).",
                                              fw.name, *fw.cuda),
                                  recipe::driver_fix(s, kb, need.major()), ev));
        } else if (min && *dv < *min && floor) {
            out.push_back(finding(fmt::format("{} is below CUDA {}'s minimum {} for {} {} (minor-version compatibility applies)",
                                              judged->label(), *fw.cuda, min->str(), fw.name, fw.version),
                                  compat_why(cv->major(), *floor), recipe::driver_fix(s, kb, min->major()), ev, Severity::warning));
        }
    }
    return out;
}

std::vector<Finding> smi_cuda_version_is_not_toolkit(const Snapshot& s, const kb::Kb&) {
    if (s.driver.max_cuda.empty()) return {};
    std::vector<std::string> others;
    // The limit may come from an override with no driver installed at all: name where it came from.
    const std::string driver = !s.driver.kernel_module_version.empty() ? "driver " + s.driver.kernel_module_version
                               : !s.driver.user_space_versions.empty() ? "driver " + s.driver.user_space_versions.back()
                               : !s.driver.windows_version.empty()     ? "Windows driver " + s.driver.windows_version
                                                                       : "driver limit (" + s.driver.max_cuda_source + ")";
    std::vector<Evidence> ev = {{driver, "runs CUDA ≤ " + s.driver.max_cuda}};
    for (const auto& tk : s.toolkits) {
        auto v = Version::parse(tk.version);
        if (!is_system_toolkit(tk) || !v || v->truncated(2).str() == s.driver.max_cuda) continue;
        others.push_back(toolkit_label(tk));
        ev.push_back({tk.path, "CUDA " + tk.version});
    }
    if (others.empty()) return {};
    std::string list;
    for (const auto& o : others) list += (list.empty() ? "" : ", ") + o;
    return {finding(fmt::format("nvidia-smi's \"CUDA Version: {}\" is the driver's limit, not your toolkit ({})", s.driver.max_cuda, list),
                    "nvidia-smi prints the newest CUDA this driver can run. The toolkit that compiles is what `nvcc "
                    "--version` says; frameworks bring their own runtime. A toolkit older than the driver's limit is fine.",
                    "nvcc --version   # the toolkit on PATH\ncudoctor check  # every toolkit and which one wins", ev)};
}

std::vector<Finding> wsl_linux_driver_installed(const Snapshot& s, const kb::Kb&) {
    if (!s.platform.wsl) return {};
    std::vector<Evidence> ev;
    std::vector<std::string> packages;
    for (const auto& p : s.driver.packages) {
        ev.push_back({"/var/lib/dpkg/status", p});
        packages.push_back(p.substr(0, p.find(' ')));
    }
    for (const auto& lib : s.driver.libraries)
        if (!lib.path.starts_with("/usr/lib/wsl/")) ev.push_back({lib.path, "a Linux driver library"});
    if (!s.driver.kernel_module_version.empty()) ev.push_back({"/proc/driver/nvidia/version", s.driver.kernel_module_version});
    if (ev.empty()) return {};
    std::string fix = packages.empty() ? "# remove the Linux NVIDIA driver files listed above\n" : "sudo apt-get remove --purge -y";
    for (const auto& p : packages) fix += " " + p;
    fix +=
        "\n# then, from Windows: wsl --shutdown   (the Windows driver provides /usr/lib/wsl/lib/libcuda.so.1)\n"
        "# install toolkits as cuda-toolkit-X-Y, never the 'cuda' or 'cuda-drivers' packages, which pull a driver";
    return {finding("A Linux NVIDIA driver is installed inside WSL2",
                    "Under WSL2 the GPU driver is the Windows one, mapped into /usr/lib/wsl/lib. A Linux driver inside the "
                    "distribution shadows it and breaks CUDA (libcuda from the wrong driver, \"Driver/library version "
                    "mismatch\", no device).",
                    fix, ev)};
}

std::vector<Finding> vm_without_gpu_passthrough(const Snapshot& s, const kb::Kb&) {
    const auto& vm = s.platform.virtualization;
    if (vm.empty() || s.platform.wsl || !s.gpus.empty()) return {};
    std::string fix;
    if (vm == "vmware")
        fix =
            "# ESXi: pass the GPU to this VM (DirectPath I/O) or use NVIDIA vGPU;\n# VMware Workstation/Player cannot give a guest CUDA: run it on the host (or in WSL2 on Windows)";
    else if (vm == "oracle")
        fix = "# VirtualBox cannot give a guest CUDA: run it on the host, in WSL2 on Windows, or under a hypervisor with PCI passthrough";
    else if (vm == "microsoft")
        fix =
            "# Hyper-V: Discrete Device Assignment (Dismount-VMHostAssignableDevice, Add-VMAssignableDevice) or GPU partitioning;\n# on a Windows desktop, WSL2 gives CUDA without a VM";
    else if (vm == "amazon" || vm == "google")
        fix = "# this instance type has no GPU: move to a GPU instance type (AWS g5/g6/p4/p5, GCP a2/a3/g2)";
    else
        fix =
            "# pass the GPU through: enable the IOMMU on the host (intel_iommu=on or amd_iommu=on), bind the GPU to vfio-pci, add it to the VM as a PCI host device";
    return {finding(fmt::format("This {} virtual machine sees no NVIDIA GPU", vm),
                    "A guest only sees a GPU the hypervisor passes through (PCI passthrough or vGPU); without one no driver "
                    "or toolkit inside the VM can run CUDA.",
                    fix, {{"/sys/class/dmi/id", "virtual machine: " + vm}, {"/sys/bus/pci/devices", "no NVIDIA display device"}})};
}

}  // namespace

std::vector<Finding> wsl_memory_limit_low(const Snapshot& s, const kb::Kb&) {
    const auto& p = s.platform;
    if (!p.wsl || !p.wsl_memory_limit || p.wslconfig_path.empty() || *p.wsl_memory_limit >= 2 * host::kBytesPerNvccJob) return {};
    const double gib = static_cast<double>(*p.wsl_memory_limit) / static_cast<double>(1ull << 30);
    return {finding(fmt::format("WSL2 is limited to {:.1f} GB of memory by {}", gib, p.wslconfig_path),
                    "A source build of OpenCV with CUDA or of a PyTorch extension needs about 3 GB per parallel nvcc job: under "
                    "this limit the kernel kills the compiler (\"Killed signal terminated program cc1plus\") at -j 2 already.",
                    fmt::format("sed -i '{}d' {}   # drop the limit: WSL2 then takes half of Windows' memory (or set memory= higher)\n"
                                "# then, in Windows: wsl --shutdown (the limit applies when WSL2 starts)",
                                p.wsl_memory_line, text::shell_quote(p.wslconfig_path)),
                    {{p.wslconfig_path + ":" + std::to_string(p.wsl_memory_line), fmt::format("[wsl2] memory: {:.1f} GB", gib)}},
                    Severity::warning)};
}

std::vector<Rule> driver_rules() {
    return {
        {"wsl-memory-limit-low", Layer::platform, Severity::warning, "WSL2's .wslconfig limits memory below what a source build needs",
         "Reads the Windows user's .wslconfig (/mnt/c/Users/*/.wslconfig, [wsl2] memory=). Under 6 GB two nvcc jobs of a "
         "source build (OpenCV with CUDA, PyTorch extensions) do not fit and the kernel kills the compiler. Fixed by "
         "dropping or raising the limit, then wsl --shutdown.",
         wsl_memory_limit_low},
        {"vm-without-gpu-passthrough", Layer::gpu, Severity::error, "a VMware / VirtualBox / Hyper-V / KVM guest sees no NVIDIA GPU",
         "Checks for a virtual machine (DMI vendor) with no NVIDIA device on its PCI bus. A guest sees a GPU only through "
         "PCI passthrough or vGPU; the fix depends on the hypervisor.",
         vm_without_gpu_passthrough},
        {"nouveau-loaded", Layer::driver, Severity::error, "nouveau is bound to the GPU or loaded",
         "Checks /proc/modules and each GPU's bound driver for nouveau. It keeps the nvidia module from binding; the fix "
         "is a modprobe blacklist file, an initramfs rebuild and a reboot.",
         nouveau_loaded},
        {"secure-boot-blocks-module", Layer::driver, Severity::error, "Secure Boot on, nvidia module built by DKMS but not loaded",
         "Checks for Secure Boot enabled, a DKMS-built nvidia module, a GPU and no loaded module: the kernel rejects the "
         "unsigned module. Fixed by enrolling the DKMS MOK key (mokutil --import) or turning Secure Boot off.",
         secure_boot_blocks_module},
        {"driver-module-not-built-for-kernel", Layer::driver, Severity::error,
         "the nvidia DKMS module is built for other kernels but not the running one",
         "Reads /var/lib/dkms/nvidia*/VERSION/ (and build/make.log of a failed build) against the running kernel. A kernel "
         "upgrade without its headers, or a failed build, boots without the driver; modprobe cannot load a module that "
         "was never built. Fixed by the running kernel's headers and dkms autoinstall (or the build log's own error first).",
         driver_module_not_built_for_kernel},
        {"gpu-without-driver", Layer::driver, Severity::error, "an NVIDIA GPU is on the PCI bus but no nvidia kernel module is loaded",
         "Checks the PCI bus for NVIDIA GPUs and /proc/driver/nvidia for the module. The fix names the driver branch "
         "for this GPU (its architecture decides: 580 for Maxwell and newer, 470 for Kepler; open modules where the "
         "GPU allows) and this distribution's package.",
         gpu_without_driver},
        {"driver-library-mismatch", Layer::driver, Severity::error, "the loaded kernel module and the user-space driver libraries differ",
         "Checks /proc/driver/nvidia/version against the libcuda / libnvidia-ml versions, and names the package change "
         "(dpkg.log, apt history) that caused it. \"Failed to initialize NVML: Driver/library version mismatch\". "
         "Fixed by a reboot or by reloading the module.",
         driver_library_mismatch},
        {"driver-too-old-for-toolkit", Layer::driver, Severity::error, "an installed toolkit needs a newer driver",
         "Compares the driver with each toolkit's minimum (data/cuda_driver.tsv): below the major's minor-version-"
         "compatibility floor is an error, between the floor and the toolkit's own minimum a warning.",
         driver_too_old_for_toolkit},
        {"driver-too-old-for-framework", Layer::driver, Severity::error, "a framework's bundled CUDA runtime needs a newer driver",
         "Compares the driver with the CUDA runtime each framework was built with (torch/version.py, TF build_info): "
         "predicts \"CUDA driver version is insufficient for CUDA runtime version\".",
         driver_too_old_for_framework},
        {"smi-cuda-version-is-not-toolkit", Layer::driver, Severity::info, "nvidia-smi's CUDA Version differs from the installed toolkit",
         "nvidia-smi's \"CUDA Version\" is the highest CUDA the driver runs, not a toolkit; says which is which.",
         smi_cuda_version_is_not_toolkit},
        {"wsl-linux-driver-installed", Layer::driver, Severity::error, "WSL2 with a Linux NVIDIA driver installed inside",
         "Under WSL2 the Windows driver provides libcuda in /usr/lib/wsl/lib; driver packages or libraries elsewhere "
         "break it. Fixed by removing them.",
         wsl_linux_driver_installed},
    };
}

}  // namespace cudoctor::rules::detail
