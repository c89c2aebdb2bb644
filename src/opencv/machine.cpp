#include "opencv/machine.hpp"

#include "formats/dpkg_status.hpp"

namespace cudoctor::opencv {

std::optional<std::string> numpy_include(const host::Host& host, std::string_view site) {
    for (const char* sub : {"numpy/_core/include", "numpy/core/include"}) {
        const std::string dir = host::join(site, sub);
        if (host.is_file(host::join(dir, "numpy/ndarrayobject.h"))) return dir;
    }
    return std::nullopt;
}

std::optional<std::set<std::string>> installed_packages(const host::Host& host) {
    auto status = host.read_file("/var/lib/dpkg/status", 256u << 20);
    if (!status) return std::nullopt;
    std::set<std::string> names;
    for (const auto& p : formats::parse_dpkg_status(*status))
        if (p.installed()) names.insert(p.name);
    return names;
}

}  // namespace cudoctor::opencv
