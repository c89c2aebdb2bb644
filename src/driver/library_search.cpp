#include "driver/library_search.hpp"

#include <cstdlib>
#include <filesystem>

#include "common/text.hpp"

namespace cudoctor::driver {
namespace {

/// The override, from cudoctor's own environment: it is the user's choice, never the machine's, so
/// an image's recorded environment (/proc/self/environ inside it) cannot name a library to load.
std::optional<std::string> override_value() {
    const char* value = std::getenv(std::string(kLibraryPathOverride).c_str());
    if (!value || !*value) return std::nullopt;
    return std::string(value);
}

std::vector<std::string> override_dirs() {
    std::vector<std::string> dirs;
    auto value = override_value();
    if (!value) return dirs;
    for (auto part : text::split(*value, ':'))
        if (!part.empty()) dirs.emplace_back(part);
    return dirs;
}

}  // namespace

std::optional<std::string> active_override() {
    auto value = override_value();
    if (!value) return std::nullopt;
    return std::string(kLibraryPathOverride) + "=" + *value;
}

std::optional<std::string> image_is_inert(const host::Host& host) {
    // The override names stand-ins on this computer: a deliberate choice that is not the image's.
    if (!host.is_rooted() || !override_dirs().empty()) return std::nullopt;
    return std::string("not loaded: inside a machine image");
}

std::vector<std::string> driver_library_candidates(const host::Host& host, std::string_view soname) {
    std::vector<std::string> out;
    for (const auto& dir : override_dirs()) out.push_back(host::join(dir, soname));
    if (!host.is_rooted()) out.emplace_back(soname);
    return out;
}

std::vector<CudnnCandidate> cudnn_candidates(const host::Host& host, const snapshot::Snapshot& snap) {
    std::vector<CudnnCandidate> out;
    const auto dirs = override_dirs();
    if (!dirs.empty()) {
        for (const auto& dir : dirs)
            for (const char* name : {"libcudnn.so.9", "libcudnn.so.8"}) {
                std::error_code ec;
                const std::string file = host::join(dir, name);
                if (std::filesystem::is_regular_file(file, ec)) out.push_back({file, "override " + dir});
            }
        return out;
    }
    if (host.is_rooted()) return out;
    for (const auto& copy : snap.cudnn) {
        if (out.size() >= 4) break;
        for (const char* name : {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so.7"}) {
            const auto path = host::join(copy.path, name);
            if (!host.is_file(path)) continue;
            auto real = host.resolve(path);
            const std::string file = host.host_path(real ? *real : path);
            bool seen = false;
            for (const auto& c : out) seen |= c.file == file;
            if (!seen) out.push_back({file, (copy.location.empty() ? "" : copy.location + " ") + copy.path});
            break;
        }
    }
    return out;
}

}  // namespace cudoctor::driver
