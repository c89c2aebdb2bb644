// Container rules: inside a container, a start without the driver's compute part and an image
// whose CUDA the host's driver cannot run; on a host, Docker and a GPU without the NVIDIA
// Container Toolkit.
#include <algorithm>

#include <fmt/format.h>

#include "common/text.hpp"
#include "formats/nvidia_require.hpp"
#include "recipe/distro.hpp"
#include "recipe/install.hpp"
#include "rules/rule_util.hpp"

namespace cudoctor::rules::detail {
namespace container_rules_detail {

using snapshot::Evidence;
using snapshot::Finding;
using snapshot::Layer;
using snapshot::Severity;
using snapshot::Snapshot;

bool has_libcuda(const Snapshot& s) {
    return std::any_of(s.driver.libraries.begin(), s.driver.libraries.end(), [](const auto& l) { return l.name == "libcuda.so"; });
}

/// "compute,utility" → whether the runtime mounts the compute part (libcuda): `compute` or `all`.
bool names_compute(std::string_view capabilities) {
    for (auto cap : text::split(capabilities, ',')) {
        const auto c = text::to_lower(text::trim(cap));
        if (c == "compute" || c == "all") return true;
    }
    return false;
}

std::vector<Finding> container_no_compute_capability(const Snapshot& s, const kb::Kb&) {
    const auto& p = s.platform;
    if (p.container.empty() || !p.nvidia_driver_capabilities) return {};
    // Empty is the runtime's default (utility and compute); a libcuda present came some other way
    // (CDI, a bind mount) and works; "void"/"none" asked for no GPU at all.
    const auto caps = text::trim(*p.nvidia_driver_capabilities);
    if (caps.empty() || names_compute(caps) || has_libcuda(s)) return {};
    if (p.nvidia_visible_devices) {
        const auto devices = text::to_lower(text::trim(*p.nvidia_visible_devices));
        if (devices == "void" || devices == "none") return {};
    }
    std::vector<Evidence> ev = {{"env NVIDIA_DRIVER_CAPABILITIES", text::printable(caps, 200)},
                                {"libcuda.so", "absent: the runtime mounted no CUDA driver library"}};
    if (p.nvidia_visible_devices) ev.push_back({"env NVIDIA_VISIBLE_DEVICES", text::printable(*p.nvidia_visible_devices, 200)});
    return {finding(fmt::format("This {} container asks the NVIDIA runtime for \"{}\" only: no compute, so no libcuda", p.container,
                                text::printable(caps, 60)),
                    "The NVIDIA Container Toolkit mounts the driver's parts that NVIDIA_DRIVER_CAPABILITIES names; without "
                    "`compute` (or `all`) it mounts no libcuda.so.1, so every CUDA program fails (\"libcuda.so.1: cannot open "
                    "shared object file\", torch.cuda.is_available() False, \"no CUDA-capable device is detected\") although "
                    "nvidia-smi may work.",
                    "# start the container with the compute capability (a container's start options are not in its image):\n"
                    "docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,utility IMAGE\n"
                    "# or set it in the image's Dockerfile and rebuild:\n"
                    "ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility",
                    ev)};
}

/// Whether one condition is known false with these facts (nullopt: cannot tell, e.g. a brand).
std::optional<bool> holds(const formats::RequireCondition& c, const std::optional<Version>& driver, const std::optional<Version>& cuda) {
    const std::optional<Version>* have = c.key == "driver" ? &driver : c.key == "cuda" ? &cuda : nullptr;
    if (!have || !*have || c.op.empty()) return std::nullopt;
    const auto want = Version::parse(c.value);
    if (!want) return std::nullopt;
    // "driver=535" speaks of the parts it names.
    const auto cmp = (c.op == "=" || c.op == "!=") ? (**have).truncated(want->size()) <=> *want : **have <=> *want;
    if (c.op == "=") return std::is_eq(cmp);
    if (c.op == "!=") return std::is_neq(cmp);
    if (c.op == "<") return std::is_lt(cmp);
    if (c.op == "<=") return std::is_lteq(cmp);
    if (c.op == ">") return std::is_gt(cmp);
    return std::is_gteq(cmp);
}

/// The newest release of CUDA X.Y the KB knows (12.3 → 12.3.2).
std::optional<Version> newest_release_of(const kb::Kb& kb, const Version& minor) {
    std::optional<Version> best;
    for (const auto& r : kb.toolkit_releases())
        if (r.toolkit.truncated(2) == minor.truncated(2) && (!best || r.toolkit > *best)) best = r.toolkit;
    return best;
}

std::vector<Finding> container_driver_too_old(const Snapshot& s, const kb::Kb& kb) {
    const auto& p = s.platform;
    if (p.container.empty() || !p.nvidia_require_cuda) return {};
    const auto driver = driver_version(s);
    const auto cuda = Version::parse(s.driver.max_cuda);
    if (!driver || !cuda) return {};
    const auto expression = formats::parse_nvidia_require(*p.nvidia_require_cuda);
    // Alternatives are ORed: one that may hold (a brand clause for this driver branch, which the
    // image's cuda-compat serves) is enough for the runtime, so only all of them failing is a finding.
    std::optional<Version> needed;
    for (const auto& alternative : expression) {
        bool fails = false;
        for (const auto& c : alternative) {
            if (holds(c, driver, cuda) == false) fails = true;
            if (c.key == "cuda" && (c.op == ">=" || c.op == ">") && !needed) needed = Version::parse(c.value);
        }
        if (!fails) return {};
    }
    if (expression.empty() || !needed) return {};
    // The KB's own minimum decides too: a driver newer than the KB's tables runs more than they say.
    const auto min = kb.min_driver_for(*needed);
    if (!min || *driver >= *min) return {};
    const auto floor = kb.minor_compat_floor(needed->major());
    const auto older = newest_release_of(kb, *cuda);
    std::vector<Evidence> ev = {{"env NVIDIA_REQUIRE_CUDA", text::printable(*p.nvidia_require_cuda, 200)},
                                {"driver", "host driver " + driver->str() + " (seen inside the container), CUDA ≤ " + cuda->str()}};
    ev.push_back({"kb:cuda_driver.tsv", fmt::format("CUDA {} needs ≥ {}", needed->truncated(2).str(), min->str())});
    if (p.nvidia_disable_require) ev.push_back({"env NVIDIA_DISABLE_REQUIRE", text::printable(*p.nvidia_disable_require, 40)});
    std::string fix = "# the driver is the host's: a container cannot change it. On the host:\n";
    fix += fmt::format("#   install NVIDIA driver branch {} or newer (CUDA {} needs ≥ {}), then restart the container\n", min->major(),
                       needed->truncated(2).str(), min->str());
    fix += fmt::format("# or use an image built for CUDA ≤ {} (what this driver runs){}", cuda->str(),
                       older ? fmt::format(", e.g. an nvidia/cuda:{}-… tag", older->str()) : std::string());
    const std::string title =
        fmt::format("The host driver {} runs CUDA ≤ {}, but this image requires cuda>={}", driver->str(), cuda->str(), needed->str());
    const std::string refused = fmt::format(
        "The image declares in NVIDIA_REQUIRE_CUDA that it needs a driver for CUDA {}; the NVIDIA Container Toolkit refuses to "
        "start it on this host (\"nvidia-container-cli: requirement error: unsatisfied condition: cuda>={}, please update your "
        "driver to a newer version\"). This one runs without that check (NVIDIA_DISABLE_REQUIRE, CDI devices, or no NVIDIA runtime at all). ",
        needed->truncated(2).str(), needed->str());
    if (floor && cuda->major() == needed->major() && *driver >= *floor) {
        return {finding(title,
                        refused + fmt::format("CUDA {}.x minor-version compatibility lets most of its programs run on a driver ≥ {}, but "
                                              "PTX JIT of newer code and newer APIs fail (CUDA_ERROR_UNSUPPORTED_PTX_VERSION).",
                                              needed->major(), floor->str()),
                        fix, ev, Severity::warning)};
    }
    return {
        finding(title, refused + "Its CUDA programs fail with \"CUDA driver version is insufficient for CUDA runtime version\".", fix, ev)};
}

std::vector<Finding> container_toolkit_missing(const Snapshot& s, const kb::Kb& kb) {
    const auto& p = s.platform;
    if (!p.container.empty() || !p.docker_installed || !p.container_toolkit_version.empty()) return {};
    if (s.gpus.empty() && !p.wsl_gpu) return {};
    // A CDI spec is what nvidia-ctk writes: the toolkit is there in a form not recognised here.
    if (!p.cdi_specs.empty()) return {};
    std::vector<Evidence> ev;
    for (const auto& e : p.evidence)
        if (text::contains(e.detail, "docker") || text::contains(e.detail, "Docker")) ev.push_back(e);
    ev.push_back({"nvidia-container-toolkit", "absent: no package, no nvidia-ctk or nvidia-container-runtime, no config.toml, no CDI spec"});
    return {finding("Docker is installed with an NVIDIA GPU but without the NVIDIA Container Toolkit",
                    "Docker reaches the GPU only through the NVIDIA Container Toolkit: without it `docker run --gpus all` fails "
                    "with \"could not select device driver \"\" with capabilities: [[gpu]]\" and no container sees the GPU.",
                    recipe::as_script(recipe::container_toolkit_install(recipe::distro_of(s), kb)), ev, Severity::warning)};
}

}  // namespace container_rules_detail

std::vector<Rule> container_rules() {
    using namespace container_rules_detail;
    return {
        {"container-no-compute-capability", Layer::platform, Severity::error,
         "inside a container started without the driver's compute capability (no libcuda)",
         "Reads NVIDIA_DRIVER_CAPABILITIES of the container's environment: set without `compute` (or `all`), the NVIDIA "
         "runtime mounts no libcuda and every CUDA program fails. Fixed by starting the container with "
         "NVIDIA_DRIVER_CAPABILITIES=compute,utility (docker run -e, or the Dockerfile's ENV).",
         container_no_compute_capability},
        {"container-driver-too-old", Layer::driver, Severity::error,
         "inside a container whose image requires a newer CUDA than the host driver runs",
         "Evaluates the image's NVIDIA_REQUIRE_CUDA (space-separated alternatives, comma-separated conditions) against the "
         "host driver seen inside (its version and the CUDA it runs); brand conditions count as possibly met, so only a "
         "requirement no alternative can meet is reported. Fixed on the host (a newer driver branch) or by an image for an "
         "older CUDA.",
         container_driver_too_old},
        {"container-toolkit-missing", Layer::platform, Severity::warning, "Docker and an NVIDIA GPU without the NVIDIA Container Toolkit",
         "Checks for Docker (docker-ce / docker.io, dockerd), an NVIDIA GPU and no NVIDIA Container Toolkit (package, "
         "nvidia-ctk, config.toml, CDI spec): docker run --gpus fails. Fixed by NVIDIA's apt repository, nvidia-container-toolkit "
         "and nvidia-ctk runtime configure --runtime=docker.",
         container_toolkit_missing},
    };
}

}  // namespace cudoctor::rules::detail
