#include "recipe/distro.hpp"

#include <algorithm>

namespace cudoctor::recipe {

bool Distro::ubuntu_family() const { return id == "ubuntu" || id == "pop" || id == "linuxmint"; }

std::string Distro::rebuild_initramfs() const { return apt() ? "sudo update-initramfs -u" : "sudo dracut --force"; }

std::string Distro::label() const {
    std::string os = id.empty() ? "this OS" : id + " " + version;
    if (!id.empty()) os[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(os[0])));
    return wsl ? os + " (WSL2)" : os;
}

Distro distro_of(const snapshot::Snapshot& snap) {
    const auto& p = snap.platform;
    Distro d;
    d.id = p.os_id;
    d.version = p.os_version;
    if (!p.arch.empty()) d.arch = p.arch == "aarch64" ? "sbsa" : p.arch;
    d.wsl = p.wsl;
    d.datacenter = std::any_of(snap.gpus.begin(), snap.gpus.end(), [](const auto& g) { return g.pci_class.starts_with("0x0302"); });
    return d;
}

}  // namespace cudoctor::recipe
