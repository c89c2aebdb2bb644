#pragma once
// Which dpkg packages belong to one toolkit version: read from /var/lib/dpkg/status and
// /var/lib/dpkg/info/<package>.list — exact names, never a glob; never a driver package (even one
// NVIDIA's CUDA repository installed), never another version's packages.
#include <string>
#include <vector>

#include "host/host.hpp"
#include "toolkits/inventory.hpp"

namespace cudoctor::toolkits {

struct OwnedPackage {
    std::string name;
    std::string version;
};

struct PackageOwnership {
    std::vector<OwnedPackage> owned;  ///< to remove, sorted by name
    /// Packages that name this version or hold files in its folder but stay, with why
    /// ("cuda-compat-12-4: holds driver files (libcuda.so.550.54.15)").
    std::vector<std::string> kept;
    /// Kept packages that hold files inside the toolkit folder (so the folder must not go).
    std::vector<std::string> kept_inside;
};

/// True for the driver's packages: nvidia-*, libnvidia-*, *-driver-*, cuda-drivers*, libcuda1,
/// xserver-xorg-video-nvidia*, linux-{modules,objects,signatures}-nvidia*, libxnvctrl*.
bool is_driver_package(std::string_view name);
/// True for a file of the driver's user space or kernel modules (libcuda.so*, libnvidia-*.so*,
/// nvidia*.ko, nvidia-smi, …), by its path.
bool is_driver_file(std::string_view path);

/// The packages installed for `entry`'s version (a package named "-12-4" / "-12-4-…", or one
/// whose file list puts files under its folder), minus driver packages and packages holding
/// driver files, minus packages named for another version. Empty when dpkg is absent.
PackageOwnership dpkg_packages_of(const host::Host& host, const Entry& entry);

}  // namespace cudoctor::toolkits
