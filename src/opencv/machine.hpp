#pragma once
// The facts of the build machine the OpenCV CMake line needs beyond the Snapshot: numpy's include
// folder and the installed Debian packages (memory and cores for -j: host/resources.hpp). All
// read through the Host, so a fixture root answers them.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "host/host.hpp"
#include "host/resources.hpp"

namespace cudoctor::opencv {

/// numpy's C headers for a site folder: site/numpy/_core/include (numpy 2) or
/// site/numpy/core/include (numpy 1), when numpy/ndarrayobject.h is there; nullopt otherwise.
std::optional<std::string> numpy_include(const host::Host& host, std::string_view site);

/// Names of the installed dpkg packages (/var/lib/dpkg/status); nullopt when the machine has
/// no dpkg database (not Debian/Ubuntu) or it cannot be read.
std::optional<std::set<std::string>> installed_packages(const host::Host& host);

}  // namespace cudoctor::opencv
