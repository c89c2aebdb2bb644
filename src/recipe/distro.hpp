#pragma once
// The one description of "which machine do install commands target": the distribution (its
// os-release ID and VERSION_ID), NVIDIA's name for the CPU architecture, WSL2, and whether the
// GPUs are datacenter boards. `check`'s and `explain`'s fixes build it from a Snapshot, `plan`
// from the Snapshot with --os / --gpu applied; every install command is derived from it
// (recipe/install.hpp), so two commands can never disagree about the machine.
#include <string>

#include "snapshot/snapshot.hpp"

namespace cudoctor::recipe {

struct Distro {
    std::string id;               ///< os-release ID: "ubuntu", "debian", "pop", "fedora"; "" when unknown
    std::string version;          ///< VERSION_ID: "22.04", "12"
    std::string arch = "x86_64";  ///< NVIDIA's repository name for the CPU: "x86_64" | "sbsa" (64-bit Arm servers)
    bool wsl = false;             ///< WSL2: the Windows driver serves the GPU
    bool datacenter = false;      ///< the GPUs are datacenter boards (PCI 3D controllers): Ubuntu's -server driver series

    /// Ubuntu and the distributions built on its archive (Pop!_OS, Linux Mint): Ubuntu's
    /// nvidia-driver-N packages and NVIDIA's ubuntuXXYY repositories.
    [[nodiscard]] bool ubuntu_family() const;
    [[nodiscard]] bool debian() const { return id == "debian"; }
    /// Installs with apt and dpkg (the Ubuntu family and Debian). The one place this is decided.
    [[nodiscard]] bool apt() const { return ubuntu_family() || debian(); }
    /// "sudo update-initramfs -u" on apt distributions, "sudo dracut --force" elsewhere.
    [[nodiscard]] std::string rebuild_initramfs() const;
    /// "Ubuntu 22.04", "Debian 12 (WSL2)", "this OS" when unknown.
    [[nodiscard]] std::string label() const;

    friend bool operator==(const Distro&, const Distro&) = default;
};

/// The Distro of a probed machine: os-release's ID and VERSION_ID, the CPU as NVIDIA's
/// repositories name it (aarch64 → sbsa), WSL2, and datacenter when any GPU is a 3D controller.
[[nodiscard]] Distro distro_of(const snapshot::Snapshot& snap);

}  // namespace cudoctor::recipe
