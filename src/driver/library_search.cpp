#include "driver/library_search.hpp"

#include "common/text.hpp"

namespace cudoctor::driver {
namespace {

std::vector<std::string> override_dirs(const host::Host& host) {
    std::vector<std::string> dirs;
    auto value = host.env(kLibraryPathOverride);
    if (!value) return dirs;
    for (auto part : text::split(*value, ':'))
        if (!part.empty()) dirs.emplace_back(part);
    return dirs;
}

}  // namespace

std::optional<std::string> active_override(const host::Host& host) {
    auto value = host.env(kLibraryPathOverride);
    if (!value || value->empty()) return std::nullopt;
    return std::string(kLibraryPathOverride) + "=" + *value;
}

std::vector<std::string> driver_library_candidates(const host::Host& host, std::string_view soname,
                                                   const std::vector<std::string>& image_copies) {
    std::vector<std::string> out;
    for (const auto& dir : override_dirs(host)) out.push_back(host.host_path(host::join(dir, soname)));
    if (!host.is_rooted()) {
        out.emplace_back(soname);
        return out;
    }
    for (const auto& path : image_copies) out.push_back(host.host_path(path));
    return out;
}

std::vector<std::string> image_copies(const snapshot::Snapshot& snap, std::string_view stem) {
    std::vector<std::string> out;
    for (const auto& lib : snap.driver.libraries)
        if (lib.name == stem && !lib.path.empty()) out.push_back(lib.path);
    return out;
}

std::vector<CudnnCandidate> cudnn_candidates(const host::Host& host, const snapshot::Snapshot& snap) {
    std::vector<CudnnCandidate> out;
    const auto dirs = override_dirs(host);
    if (!dirs.empty()) {
        for (const auto& dir : dirs)
            for (const char* name : {"libcudnn.so.9", "libcudnn.so.8"})
                if (host.is_file(host::join(dir, name))) out.push_back({host.host_path(host::join(dir, name)), "override " + dir});
        return out;
    }
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
