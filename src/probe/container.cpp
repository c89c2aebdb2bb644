// Container probe. Inside a container the NVIDIA runtime reads NVIDIA_VISIBLE_DEVICES,
// NVIDIA_DRIVER_CAPABILITIES and NVIDIA_REQUIRE_CUDA from the image's environment (what the image's
// ENV lines set, or `docker run -e`): they are recorded as set. On a host: the NVIDIA Container
// Toolkit (dpkg, its programs, its config.toml), Docker (dpkg or dockerd), Docker's daemon.json
// runtime entry and the CDI specs. Files only.
#include "probe/container.hpp"

#include <nlohmann/json.hpp>

#include "common/text.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kContainerProbe = "container";
constexpr std::size_t kDaemonJsonCap = 1u << 20;  // a daemon.json is a few hundred bytes

void read_container_env(Context& ctx) {
    auto& p = ctx.snap.platform;
    const auto take = [&](const char* key, std::optional<std::string>& field) {
        field = ctx.host.env(key);
        if (field) p.evidence.push_back({std::string("env ") + key, text::printable(*field, 200)});
    };
    take("NVIDIA_VISIBLE_DEVICES", p.nvidia_visible_devices);
    take("NVIDIA_DRIVER_CAPABILITIES", p.nvidia_driver_capabilities);
    take("NVIDIA_REQUIRE_CUDA", p.nvidia_require_cuda);
    take("NVIDIA_DISABLE_REQUIRE", p.nvidia_disable_require);
}

void read_toolkit(Context& ctx) {
    auto& p = ctx.snap.platform;
    for (const char* pkg :
         {"nvidia-container-toolkit", "nvidia-container-toolkit-base", "libnvidia-container1", "libnvidia-container-tools"}) {
        if (auto v = ctx.dpkg_version(pkg)) {
            p.container_toolkit_version = *v;
            p.evidence.push_back({"/var/lib/dpkg/status", std::string(pkg) + " " + *v});
            return;
        }
    }
    // An rpm, a tarball or a distribution package of its own: its programs or its config say it is there.
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/sbin"}) {
        for (const char* prog : {"nvidia-ctk", "nvidia-container-runtime", "nvidia-container-runtime-hook", "nvidia-container-cli"}) {
            const auto path = host::join(dir, prog);
            if (ctx.host.is_executable_file(path)) {
                p.container_toolkit_version = "unknown";
                p.evidence.push_back({path, "present: NVIDIA Container Toolkit"});
                return;
            }
        }
    }
    if (ctx.host.is_file("/etc/nvidia-container-runtime/config.toml")) {
        p.container_toolkit_version = "unknown";
        p.evidence.push_back({"/etc/nvidia-container-runtime/config.toml", "present: NVIDIA Container Toolkit"});
    }
}

void read_docker(Context& ctx) {
    auto& p = ctx.snap.platform;
    for (const char* pkg : {"docker-ce", "docker.io", "moby-engine"}) {
        if (auto v = ctx.dpkg_version(pkg)) {
            p.docker_installed = true;
            p.evidence.push_back({"/var/lib/dpkg/status", std::string(pkg) + " " + *v});
            break;
        }
    }
    if (!p.docker_installed && ctx.host.is_executable_file("/usr/bin/dockerd")) {
        p.docker_installed = true;
        p.evidence.push_back({"/usr/bin/dockerd", "present: Docker Engine"});
    }
    constexpr std::string_view kDaemonJson = "/etc/docker/daemon.json";
    auto text_data = ctx.read(kContainerProbe, kDaemonJson, kDaemonJsonCap);
    if (!text_data) return;
    const auto j = nlohmann::json::parse(*text_data, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
        ctx.note(kContainerProbe, kDaemonJson, "not a JSON object: Docker refuses to start with it");
        return;
    }
    const auto runtimes = j.find("runtimes");
    if (runtimes != j.end() && runtimes->is_object() && runtimes->contains("nvidia")) {
        p.docker_nvidia_runtime = true;
        p.evidence.push_back({std::string(kDaemonJson), "runtimes: nvidia"});
    }
}

void read_cdi(Context& ctx) {
    auto& p = ctx.snap.platform;
    for (const char* dir : {"/etc/cdi", "/var/run/cdi"}) {
        for (const char* pattern : {"*.yaml", "*.json"})
            for (const auto& f : ctx.host.glob(dir, pattern))
                if (ctx.host.is_file(f)) p.cdi_specs.push_back(f);
    }
    for (const auto& f : p.cdi_specs) p.evidence.push_back({f, "CDI spec"});
}

}  // namespace

void probe_container(Context& ctx) {
    if (!ctx.snap.platform.container.empty()) {
        read_container_env(ctx);
        return;
    }
    read_toolkit(ctx);
    read_docker(ctx);
    read_cdi(ctx);
}

}  // namespace cudoctor::probe
