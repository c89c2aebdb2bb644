#include "recipe/target.hpp"

#include <algorithm>

#include "recipe/request.hpp"

namespace cudoctor::recipe {

namespace {

std::optional<Version> installed_driver(const snapshot::Snapshot& snap) {
    if (auto v = Version::parse(snap.driver.kernel_module_version)) return v;
    if (!snap.driver.user_space_versions.empty()) return Version::parse(snap.driver.user_space_versions.back());
    return std::nullopt;
}

bool system_toolkit(const snapshot::Toolkit& tk) {
    return tk.install_method != "conda" && !(tk.install_method == "pip" && tk.path.find("/nvidia/") != std::string::npos);
}

bool cc_less(const std::string& a, const std::string& b) {
    auto va = Version::parse(a), vb = Version::parse(b);
    return va && vb && *va < *vb;
}

}  // namespace

Expected<Target> make_target(const snapshot::Snapshot& snap, const Request& request, const kb::Kb& kb) {
    Target t;
    const auto& p = snap.platform;
    t.os_id = p.os_id;
    t.os_version = p.os_version;
    t.wsl = p.wsl;
    t.virtualization = p.virtualization;
    t.secure_boot = p.secure_boot;
    if (!p.arch.empty()) t.arch = p.arch == "aarch64" ? "sbsa" : p.arch;
    t.gcc_default = p.gcc_default;
    t.gcc_installed = p.gcc_installed;
    t.driver = installed_driver(snap);
    t.nouveau =
        std::find(snap.driver.loaded_modules.begin(), snap.driver.loaded_modules.end(), "nouveau") != snap.driver.loaded_modules.end() ||
        std::any_of(snap.gpus.begin(), snap.gpus.end(), [](const auto& g) { return g.bound_driver == "nouveau"; });

    if (request.os) {
        auto os = parse_os(*request.os, kb);
        if (!os) return Unexpected<Error>(os.error());
        const bool other_os = os->id != t.os_id || os->version != t.os_version;
        if (os->wsl != t.wsl) {  // another kind of machine: this one's driver and hypervisor say nothing
            t.driver.reset();
            t.virtualization.clear();
            t.nouveau = false;
            t.notes.emplace_back(os->wsl ? "planned for WSL2 (--os): the Windows driver serves the GPU"
                                         : "planned for a machine without WSL2 (--os): this machine's driver is not counted");
        }
        if (other_os) {
            t.gcc_default = kb.default_gcc_of(os->id, os->version);
            t.gcc_installed.clear();
            t.notes.push_back("OS from --os: " + os->id + " " + os->version + (os->wsl ? " under WSL2" : "") +
                              "; its default gcc from distro_releases.tsv");
        }
        t.os_id = os->id;
        t.os_version = os->version;
        t.wsl = os->wsl;
    }
    if (!t.gcc_default) t.gcc_default = kb.default_gcc_of(t.os_id, t.os_version);

    if (request.gpu) {
        auto gpu = resolve_gpu(*request.gpu, kb);
        if (!gpu) return Unexpected<Error>(gpu.error());
        t.gpu_name = gpu->name;
        t.compute_capability = gpu->compute_capability;
        t.architecture = gpu->architecture;
        t.datacenter = gpu->datacenter;
        t.gpu_visible = !snap.gpus.empty() || t.wsl || t.virtualization.empty();
        t.notes.push_back("GPU from --gpu: " + (gpu->name.empty() ? "compute capability " + gpu->compute_capability : gpu->name));
    } else {
        const snapshot::Gpu* oldest = nullptr;
        for (const auto& g : snap.gpus)
            if (!g.compute_capability.empty() && (!oldest || cc_less(g.compute_capability, oldest->compute_capability))) oldest = &g;
        if (oldest) {
            t.gpu_name = oldest->name;
            t.compute_capability = oldest->compute_capability;
            t.architecture = oldest->architecture;
            t.datacenter = oldest->pci_class.starts_with("0x0302");
            for (const auto& g : snap.gpus)
                if (!g.compute_capability.empty() && g.compute_capability != oldest->compute_capability)
                    t.notes.push_back("several GPU models: planned for the oldest, the " + oldest->name + " (compute " +
                                      oldest->compute_capability + ")");
        } else if (!snap.gpus.empty()) {
            return fail(Errc::usage, "the compute capability of this machine's GPU (" + snap.gpus.front().pci_device_id +
                                         ") is unknown: give it with --gpu X.Y");
        } else if (!t.virtualization.empty() && !t.wsl) {
            t.gpu_visible = false;
        } else {
            return fail(Errc::usage, "no NVIDIA GPU found on this machine: name the GPU to plan for with --gpu (\"RTX 4060 Ti\" or 8.9)");
        }
    }

    if (!request.fresh) {
        for (const auto& tk : snap.toolkits) {
            auto v = Version::parse(tk.version);
            if (v && system_toolkit(tk) && tk.has_nvcc) t.toolkits.push_back({*v, tk.path, tk.install_method});
        }
        for (const auto& c : snap.cudnn)
            if (auto v = Version::parse(c.version)) t.cudnn.push_back({*v, c.cuda_major, c.location, c.path});
        for (const auto& f : snap.frameworks) t.frameworks.push_back({f.name, f.version, f.cuda.value_or("")});
    } else {
        t.driver.reset();
        t.notes.emplace_back("--fresh: planned as for a clean install; what is installed is not counted");
    }
    return t;
}

}  // namespace cudoctor::recipe
