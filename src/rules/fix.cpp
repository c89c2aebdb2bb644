#include "rules/fix.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/version.hpp"

namespace cudoctor::rules::fix {

bool is_ubuntu(const snapshot::Platform& p) { return p.os_id == "ubuntu" || p.os_id == "pop" || p.os_id == "linuxmint"; }
bool is_debian(const snapshot::Platform& p) { return p.os_id == "debian"; }
bool uses_apt(const snapshot::Platform& p) { return is_ubuntu(p) || is_debian(p); }

namespace {

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

bool datacenter(const snapshot::Snapshot& snap) {
    // 3D controllers (class 0x0302) are the datacenter boards: Ubuntu's -server driver series.
    return std::any_of(snap.gpus.begin(), snap.gpus.end(), [](const auto& g) { return g.pci_class.starts_with("0x0302"); });
}

bool open_module_possible(const snapshot::Snapshot& snap, const kb::Kb& kb) {
    if (snap.gpus.empty()) return false;
    return std::all_of(snap.gpus.begin(), snap.gpus.end(), [&](const auto& g) {
        auto k = kb.kernel_modules_for(g.architecture);
        return k && k->open;
    });
}

}  // namespace

std::string install_packages(const snapshot::Platform& p, const std::vector<std::string>& packages) {
    if (uses_apt(p)) return "sudo apt-get update && sudo apt-get install -y " + joined(packages);
    if (p.os_id == "fedora" || p.os_id == "rhel" || p.os_id == "rocky" || p.os_id == "almalinux" || p.os_id == "centos")
        return "sudo dnf install -y " + joined(packages);
    if (p.os_id == "opensuse-leap" || p.os_id == "opensuse-tumbleweed" || p.os_id == "sles")
        return "sudo zypper install -y " + joined(packages);
    if (p.os_id == "arch" || p.os_id == "manjaro") return "sudo pacman -S --needed " + joined(packages);
    return "# install with your distribution's package manager: " + joined(packages);
}

std::optional<int> driver_branch_for(const snapshot::Snapshot& snap, const kb::Kb& kb) {
    std::optional<int> branch;
    for (const auto& g : snap.gpus) {
        auto k = kb.kernel_modules_for(g.architecture);
        if (!k || !k->driver_branch) continue;
        if (!branch || *k->driver_branch < *branch) branch = k->driver_branch;  // the oldest GPU decides
    }
    return branch;
}

std::string install_driver(const snapshot::Snapshot& snap, const kb::Kb& kb, std::optional<int> min_branch) {
    const auto& p = snap.platform;
    int branch = driver_branch_for(snap, kb).value_or(580);
    if (min_branch && *min_branch > branch) branch = *min_branch;
    const bool open = open_module_possible(snap, kb) && branch >= 560;
    if (is_ubuntu(p)) {
        const char* name = datacenter(snap) ? (open ? "ubuntu_driver_server_open" : "ubuntu_driver_server")
                                            : (open ? "ubuntu_driver_open" : "ubuntu_driver");
        auto pkg =
            kb.package_name(name, {{"branch", std::to_string(branch)}}).value_or(fmt::format("nvidia-driver-{}{}", branch, open ? "-open" : ""));
        return fmt::format("sudo apt-get update\nsudo apt-get install -y {}\nsudo reboot", pkg);
    }
    if (is_debian(p)) {
        // Debian's own nvidia-driver when its branch is new enough for these GPUs (Blackwell needs
        // the open modules of a newer branch), else NVIDIA's CUDA repository.
        const auto release = kb.distro_release(p.os_id, p.os_version);
        const bool needs_open = !snap.gpus.empty() && std::any_of(snap.gpus.begin(), snap.gpus.end(), [&](const auto& g) {
            auto k = kb.kernel_modules_for(g.architecture);
            return k && !k->proprietary;
        });
        const int own = release && release->distro_driver_branch ? *release->distro_driver_branch : 0;
        const int needed = std::max(min_branch.value_or(0), needs_open ? 570 : 0);
        if (own > 0 && own >= needed)
            return "# enable the contrib, non-free and non-free-firmware components in /etc/apt/sources.list, then:\n"
                   "sudo apt-get update\nsudo apt-get install -y linux-headers-$(uname -r) nvidia-driver firmware-misc-nonfree\n"
                   "sudo reboot";
        if (release && !release->cuda_repo.empty()) {
            auto pkg = kb.package_name(open ? "nvidia_driver_open" : "nvidia_driver_proprietary", {{"branch", std::to_string(branch)}})
                           .value_or("cuda-drivers");
            auto keyring =
                kb.package_name("cuda_keyring_url", {{"distro", release->cuda_repo}, {"arch", p.arch.empty() ? "x86_64" : p.arch}}).value_or("");
            return fmt::format(
                "wget {}\nsudo dpkg -i cuda-keyring_1.1-1_all.deb\nsudo apt-get update\n"
                "sudo apt-get install -y linux-headers-$(uname -r) {}\nsudo reboot",
                keyring, pkg);
        }
    }
    return fmt::format("# install the NVIDIA driver branch {} or newer{} from your distribution, then reboot", branch,
                       open ? " (open kernel modules)" : "");
}

std::string path_exports(const std::string& toolkit_path) {
    return fmt::format(
        "export PATH={0}/bin${{PATH:+:$PATH}}\n"
        "export LD_LIBRARY_PATH={0}/lib64${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\n"
        "# to keep it: add the two lines above to ~/.bashrc",
        toolkit_path);
}

std::string use_host_gcc(const snapshot::Platform& p, int gcc_major) {
    std::string out;
    const bool have = std::find(p.gcc_installed.begin(), p.gcc_installed.end(), gcc_major) != p.gcc_installed.end();
    if (!have) out += install_packages(p, {fmt::format("gcc-{}", gcc_major), fmt::format("g++-{}", gcc_major)}) + "\n";
    out += fmt::format(
        "export NVCC_PREPEND_FLAGS='-ccbin /usr/bin/g++-{0}'\n"
        "# CMake projects: cmake -DCMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-{0} …",
        gcc_major);
    return out;
}

std::string toolkit_label(const snapshot::Toolkit& tk) {
    return fmt::format("CUDA {} ({})", tk.version.empty() ? "?" : tk.version, tk.path);
}

}  // namespace cudoctor::rules::fix
