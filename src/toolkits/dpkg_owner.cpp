#include "toolkits/dpkg_owner.hpp"

#include <algorithm>

#include <re2/re2.h>

#include "common/text.hpp"
#include "common/version.hpp"
#include "formats/dpkg_status.hpp"

namespace cudoctor::toolkits {
namespace {

/// "-12-4" as the last part of the name or followed by "-" ("cuda-toolkit-12-4-config-common").
bool names_version(std::string_view name, const std::string& tag) {
    for (auto at = name.find(tag); at != std::string_view::npos; at = name.find(tag, at + 1)) {
        const auto end = at + tag.size();
        if (end == name.size() || name[end] == '-') return true;
    }
    return false;
}

/// The "-X-Y" version tag a package name carries ("libcublas-12-4" → "-12-4"), or "".
std::string version_tag(const std::string& name) {
    static const RE2 kTag(R"(-(\d+)-(\d+)(?:-|$))");
    std::string major, minor;
    if (RE2::PartialMatch(name, kTag, &major, &minor)) return "-" + major + "-" + minor;
    return {};
}

bool worth_reading_list(std::string_view name) {
    return text::contains(name, "cuda") || text::contains(name, "nvidia") || text::contains(name, "nsight") || name.starts_with("libcu") ||
           name.starts_with("libnv") || name.starts_with("libnpp") || name.starts_with("libcudnn");
}

}  // namespace

bool is_driver_package(std::string_view name) {
    for (std::string_view p :
         {"nvidia-", "libnvidia-", "cuda-drivers", "libcuda1", "libcuda-", "xserver-xorg-video-nvidia", "linux-modules-nvidia",
          "linux-objects-nvidia", "linux-signatures-nvidia", "libxnvctrl", "libnvcuvid", "libnvoptix"})
        if (name.starts_with(p)) return true;
    return text::contains(name, "-driver-") || name.ends_with("-driver") || text::contains(name, "-dkms");
}

bool is_driver_file(std::string_view path) {
    if (text::contains(path, "/stubs/")) return false;  // the toolkit's link-time stub is no driver
    const auto base = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
    if (base.starts_with("libcuda.so") || base.starts_with("libnvidia-") || base.starts_with("libnvcuvid.so") ||
        base.starts_with("libnvoptix.so") || base.starts_with("libcudadebugger.so"))
        return true;
    if (base == "nvidia-smi" || base == "nvidia-modprobe" || base == "nvidia-persistenced") return true;
    if (base.starts_with("nvidia") && base.ends_with(".ko")) return true;
    return text::contains(path, "/lib/modules/") && text::contains(base, "nvidia");
}

PackageOwnership dpkg_packages_of(const host::Host& host, const Entry& entry) {
    PackageOwnership out;
    auto v = Version::parse(entry.toolkit.version);
    auto status = host.read_file("/var/lib/dpkg/status", 256u << 20);
    if (!v || !status) return out;
    const std::string tag = "-" + std::to_string(v->major()) + "-" + std::to_string(v->minor());
    const std::string folder = entry.toolkit.path + "/";
    for (const auto& pkg : formats::parse_dpkg_status(*status)) {
        if (!pkg.installed() && pkg.status.find("config-files") == std::string::npos) continue;
        const bool by_name = names_version(pkg.name, tag);
        if (!by_name && !worth_reading_list(pkg.name)) continue;
        std::optional<std::string> list;
        for (const std::string& n : {pkg.name, pkg.name + ":" + pkg.architecture}) {
            if (auto data = host.read_file("/var/lib/dpkg/info/" + n + ".list", 64u << 20)) {
                list = std::move(*data);
                break;
            }
        }
        bool has_files_here = false;
        std::string driver_file;
        if (list) {
            for (auto line : text::lines(*list)) {
                if (line.starts_with(folder) || line == entry.toolkit.path) has_files_here = true;
                if (driver_file.empty() && is_driver_file(line)) driver_file = std::string(line);
            }
        }
        if (!by_name && !has_files_here) continue;
        if (is_driver_package(pkg.name)) {
            out.kept.push_back(pkg.name + ": the driver's package (kept, even though it came with CUDA)");
            if (has_files_here) out.kept_inside.push_back(pkg.name);
            continue;
        }
        if (!driver_file.empty()) {
            out.kept.push_back(pkg.name + ": holds driver files (" + driver_file + "), kept");
            if (has_files_here) out.kept_inside.push_back(pkg.name);
            continue;
        }
        if (!by_name) {
            const std::string other = version_tag(pkg.name);
            if (!other.empty() && other != tag) {
                out.kept.push_back(pkg.name + ": named for another CUDA version, kept");
                continue;
            }
        }
        out.owned.push_back({pkg.name, pkg.version});
    }
    std::sort(out.owned.begin(), out.owned.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

}  // namespace cudoctor::toolkits
