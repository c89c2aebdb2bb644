// Tie-ins for the platform-level causes: a killed build (memory and cores), apt's repositories
// (sources and keyrings), the container runtime (the NVIDIA Container Toolkit), a failed DKMS
// build and the runfile installer's refusals (what the installer checks for).
#include <fmt/format.h>

#include "explain/tie_in_util.hpp"
#include "host/host.hpp"

namespace cudoctor::explain::detail {
namespace {

bool is_nvidia_uri(const std::string& uri) {
    return uri.find("developer.download.nvidia.com") != std::string::npos || uri.find("nvidia.github.io") != std::string::npos;
}

}  // namespace

void tie_build_oom(Cause& c, const std::optional<host::BuildResources>& resources) {
    if (!resources || (!resources->mem_available_kib && !resources->cores)) return;
    std::string why;
    const unsigned jobs = host::parallel_jobs(*resources, why);
    context(c, "here: " + why + " → " + std::to_string(jobs) + (jobs == 1 ? " parallel job" : " parallel jobs"));
    const std::string n = std::to_string(jobs);
    // The general first step ("fewer jobs, about the free GiB / 3") becomes the number for here.
    auto fix = c.fix;
    if (!fix.empty() && fix.front().rfind("Build with fewer jobs", 0) == 0) fix.erase(fix.begin());
    fix.insert(fix.begin(), "Build with " + n + (jobs == 1 ? " job" : " jobs") + " here: MAX_JOBS=" + n +
                                " for PyTorch extensions (flash-attention, apex, xformers), make -j" + n + ", ninja -j" + n +
                                " or cmake --build . -j " + n);
    set_fix(c, fix);
}

void tie_apt_repo(Cause& c, const snapshot::Snapshot& snap, const kb::Kb&) {
    const auto& p = snap.platform;
    int nvidia = 0;
    for (const auto& s : p.apt_sources) {
        if (!s.enabled || !is_nvidia_uri(s.uri)) continue;
        ++nvidia;
        const std::string where = fmt::format("{}:{}", s.file, s.line);
        if (s.signed_by_missing)
            confirms(c, fmt::format("{} names the keyring {}, which is not on this machine (apt: NO_PUBKEY)", where, s.signed_by));
        else if (s.local_dir_missing) confirms(c, fmt::format("{} names the local repository {}, whose folder is gone", where, s.uri));
        else
            context(c, fmt::format("NVIDIA repository here: {} ({}{})", s.uri, where,
                                   s.signed_by.empty() ? ", no signed-by" : ", signed-by " + s.signed_by));
    }
    if (nvidia == 0 && !p.os_id.empty())
        context(c, "no NVIDIA repository is configured in apt's sources here: apt knows none of its packages");
    std::vector<std::string> keys;
    for (const auto& k : p.apt_keyrings)
        if (host::basename(k).find("cuda") != std::string::npos || host::basename(k).find("nvidia") != std::string::npos) keys.push_back(k);
    if (!keys.empty()) context(c, fmt::format("NVIDIA keyrings here: {}", fmt::join(keys, ", ")));
}

void tie_container_runtime(Cause& c, const snapshot::Snapshot& snap, const kb::Kb&) {
    const auto& p = snap.platform;
    if (!p.container.empty()) {
        context(c, "this is a " + p.container + " container: the GPU is given to it by the host's runtime, from outside");
        if (p.nvidia_visible_devices) context(c, "NVIDIA_VISIBLE_DEVICES=" + *p.nvidia_visible_devices);
        if (p.nvidia_require_cuda) context(c, "the image requires: " + *p.nvidia_require_cuda);
        return;
    }
    if (!p.docker_installed && p.container_toolkit_version.empty()) return;  // no container runtime here to judge
    if (p.container_toolkit_version.empty()) confirms(c, "the NVIDIA Container Toolkit is not installed here");
    else context(c, "NVIDIA Container Toolkit here: " + p.container_toolkit_version);
    if (p.docker_installed && !p.container_toolkit_version.empty()) {
        if (p.docker_nvidia_runtime) context(c, "Docker's daemon.json names the nvidia runtime");
        else if (p.cdi_specs.empty())
            context(c,
                    "Docker's daemon.json names no nvidia runtime and there is no CDI spec: sudo nvidia-ctk runtime configure --runtime=docker");
    }
}

void tie_dkms(Cause& c, const snapshot::Snapshot& snap, const kb::Kb&) {
    const auto& p = snap.platform;
    for (const auto& m : p.dkms) {
        if (m.module.rfind("nvidia", 0) != 0) continue;
        if (!m.build_error.empty())
            confirms(c, fmt::format("/var/lib/dkms/{}/{}/build/make.log here: {}", m.module, m.version, m.build_error));
        else if (m.kernel == p.kernel && !p.kernel.empty() && !m.built_for_running_kernel)
            confirms(c, fmt::format("DKMS has {} {} but no build of it for the running kernel {}", m.module, m.version, p.kernel));
        else if (m.built_for_running_kernel)
            context(c,
                    fmt::format("DKMS has built {} {} for the running kernel {}: the failed build was for another kernel, or has been mended",
                                m.module, m.version, p.kernel));
    }
}

void tie_runfile_refused(Cause& c, const snapshot::Snapshot& snap, const kb::Kb&) {
    const auto& p = snap.platform;
    if (p.os_id.empty()) return;
    if (p.c_compiler.empty()) confirms(c, "no C compiler on PATH here: the driver installer builds its kernel module with one");
    if (!snap.driver.packages.empty())
        context(c, fmt::format("driver packages installed here (the runfile will not install over them): {}",
                               fmt::join(snap.driver.packages, ", ")));
    if (!snap.driver.kernel_module_version.empty())
        context(c, "an NVIDIA kernel module " + snap.driver.kernel_module_version +
                       " is loaded: the driver installer stops while it is in use");
}

}  // namespace cudoctor::explain::detail
