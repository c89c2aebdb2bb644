#include "recipe/target.hpp"

#include <algorithm>

#include "kb/toolkit_release.hpp"
#include "recipe/install.hpp"
#include "recipe/request.hpp"

namespace cudoctor::recipe {

namespace {

bool cc_less(const std::string& a, const std::string& b) {
    auto va = Version::parse(a), vb = Version::parse(b);
    return va && vb && *va < *vb;
}

}  // namespace

Expected<Target> make_target(const snapshot::Snapshot& snap, const Request& request, const kb::Kb& kb) {
    Target t;
    const auto& p = snap.platform;
    t.distro = distro_of(snap);
    t.virtualization = p.virtualization;
    t.secure_boot = p.secure_boot;
    t.gcc_default = p.gcc_default;
    t.gcc_installed = p.gcc_installed;
    t.driver = snapshot::driver_version(snap);
    const auto machine = driver_need(snap);
    t.gpu_architectures = machine.architectures;
    t.nouveau = machine.nouveau;

    if (request.os) {
        auto os = parse_os(*request.os, kb);
        if (!os) return Unexpected<Error>(os.error());
        const bool other_os = os->id != t.distro.id || os->version != t.distro.version;
        if (os->wsl != t.distro.wsl) {  // another kind of machine: this one's driver and hypervisor say nothing
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
        t.distro.id = os->id;
        t.distro.version = os->version;
        t.distro.wsl = os->wsl;
    }
    if (!t.gcc_default) t.gcc_default = kb.default_gcc_of(t.distro.id, t.distro.version);

    if (request.gpu) {
        auto gpu = resolve_gpu(*request.gpu, kb);
        if (!gpu) return Unexpected<Error>(gpu.error());
        t.gpu_name = gpu->name;
        t.compute_capability = gpu->compute_capability;
        t.architecture = gpu->architecture;
        t.distro.datacenter = gpu->datacenter;
        t.gpu_architectures = {gpu->architecture};
        t.gpu_visible = !snap.gpus.empty() || t.distro.wsl || t.virtualization.empty();
        t.notes.push_back("GPU from --gpu: " + (gpu->name.empty() ? "compute capability " + gpu->compute_capability : gpu->name));
    } else {
        const snapshot::Gpu* oldest = nullptr;
        for (const auto& g : snap.gpus)
            if (!g.compute_capability.empty() && (!oldest || cc_less(g.compute_capability, oldest->compute_capability))) oldest = &g;
        if (oldest) {
            t.gpu_name = oldest->name;
            t.compute_capability = oldest->compute_capability;
            t.architecture = oldest->architecture;
            for (const auto& g : snap.gpus)
                if (!g.compute_capability.empty() && g.compute_capability != oldest->compute_capability)
                    t.notes.push_back("several GPU models: planned for the oldest, the " + oldest->name + " (compute " +
                                      oldest->compute_capability + ")");
        } else if (!snap.gpus.empty()) {
            return fail(Errc::usage, "the compute capability of this machine's GPU (" + snap.gpus.front().pci_device_id +
                                         ") is unknown: give it with --gpu X.Y");
        } else if (!t.virtualization.empty() && !t.distro.wsl) {
            t.gpu_visible = false;
        } else {
            return fail(Errc::usage, "no NVIDIA GPU found on this machine: name the GPU to plan for with --gpu (\"RTX 4060 Ti\" or 8.9)");
        }
    }

    if (!request.fresh) {
        for (const auto& tk : snap.toolkits) {
            auto v = kb::lenient_release(kb, tk);  // the release, not nvcc's 12.6.77 read as one
            if (v && snapshot::is_system_toolkit(tk) && tk.has_nvcc)
                t.toolkits.push_back({*v, tk.path, std::string(snapshot::to_string(tk.install_method))});
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
