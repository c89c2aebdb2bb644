// The driver step: routed by situation (the distribution's packages, NVIDIA's CUDA repository,
// the runfile only offline), with the nouveau blacklist and the Secure Boot key where this machine
// needs them, and the reboot. Never inside WSL2 or a VM without the GPU: those say why instead.
#include <algorithm>

#include <fmt/format.h>

#include "recipe/steps.hpp"

namespace cudoctor::recipe::detail {

namespace {

std::string version_check(const Version& need) {
    return fmt::format(
        "v=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1) && "
        "[ \"$(printf '%s\\n' {0} \"$v\" | sort -V | head -n1)\" = {0} ] && echo \"driver $v >= {0}\"",
        need.str());
}

}  // namespace

bool uses_apt(const Target& t) { return t.os_id == "ubuntu" || t.os_id == "debian"; }

std::string cuda_repo_of(const Target& t, const kb::Kb& kb) {
    if (t.wsl) return t.os_id == "ubuntu" ? "wsl-ubuntu" : "";
    auto release = kb.distro_release(t.os_id, t.os_version);
    return release ? release->cuda_repo : "";
}

std::vector<std::string> keyring_commands(const std::string& repo, const Target& t, const kb::Kb& kb) {
    const auto url =
        kb.package_name("cuda_keyring_url", {{"distro", repo}, {"arch", t.arch}})
            .value_or(fmt::format("https://developer.download.nvidia.com/compute/cuda/repos/{}/{}/cuda-keyring_1.1-1_all.deb", repo, t.arch));
    std::vector<std::string> out = {"# NVIDIA's CUDA repository (" + repo + "): its keyring package first, or apt rejects the repository",
                                    "wget -N " + url, "sudo dpkg -i cuda-keyring_1.1-1_all.deb", "sudo apt-get update"};
    if (t.os_id == "debian")
        out.insert(out.begin() + 1, "sudo add-apt-repository -y contrib   # Debian: the CUDA repository needs contrib");
    return out;
}

void add_driver_step(StepContext& ctx) {
    const auto& t = ctx.target;
    auto& plan = ctx.plan;
    const auto& need = plan.min_driver;
    if (!t.gpu_visible) {
        plan.kept.push_back({"driver", "no driver step",
                             fmt::format("this {} virtual machine does not see the GPU: a driver inside it cannot help until the "
                                         "hypervisor passes the GPU through (PCI passthrough or vGPU)",
                                         t.virtualization)});
        return;
    }
    if (t.wsl) {
        const auto rel = plan.cuda ? ctx.kb.toolkit_release(*plan.cuda) : std::nullopt;
        plan.kept.push_back(
            {"driver", "the Windows driver",
             fmt::format("under WSL2 the Windows NVIDIA driver serves the GPU (/usr/lib/wsl/lib/libcuda.so.1){}; "
                         "never install a Linux driver inside WSL2",
                         rel && rel->min_windows_driver ? " — it must be ≥ " + rel->min_windows_driver->str() + " on Windows" : "")});
        plan.driver_after = t.driver;
        return;
    }
    if (!need) return;
    if (t.driver && *t.driver >= *need) {
        const auto max = ctx.kb.max_cuda_for(*t.driver);
        plan.kept.push_back({"driver", "driver " + t.driver->str(),
                             fmt::format("it runs CUDA ≤ {}; CUDA {} needs ≥ {}: a driver that works is not upgraded",
                                         max ? max->str() : "?", plan.cuda ? plan.cuda->str() : "?", need->str())});
        plan.driver_after = t.driver;
        return;
    }

    const auto modules = ctx.kb.kernel_modules_for(t.architecture);
    int branch = std::max(modules && modules->driver_branch ? *modules->driver_branch : 0, need->major());
    const bool open = modules && modules->open && (branch >= 560 || !modules->proprietary);
    plan.driver_branch = branch;
    plan.driver_after = branch > need->major() ? Version({branch}) : *need;
    Step s;
    s.layer = "driver";
    s.title = fmt::format("NVIDIA driver {}{} (first, and clean)", branch, open ? " with the open kernel modules" : "");
    s.notes.emplace_back("The driver goes first: every later step is checked against it. Reboot before going on.");
    if (t.nouveau) {
        s.notes.emplace_back("nouveau holds the GPU now: blacklist it, or the nvidia module cannot bind.");
        s.commands.emplace_back("printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf");
        s.commands.emplace_back(uses_apt(t) ? "sudo update-initramfs -u" : "sudo dracut --force");
    }
    const auto rel = toolkit_update(*plan.cuda, std::nullopt, ctx.kb);
    const bool offline_runfile = ctx.request.offline && rel && rel->runfile_driver && *rel->runfile_driver >= *need;
    bool dkms = true;
    bool routed = true;
    if (offline_runfile) {
        s.notes.push_back("Offline: the driver bundled in the CUDA runfile (" + rel->runfile_driver->str() +
                          "); copy the runfile here and check it with `cudoctor verify-installer` first.");
        if (uses_apt(t)) s.commands.emplace_back("sudo apt-get install -y build-essential linux-headers-$(uname -r)   # from local media");
        s.commands.push_back(fmt::format("sudo sh {} --silent --driver{}", rel->runfile, open ? " -m=kernel-open" : ""));
        plan.driver_after = *rel->runfile_driver;
    } else if (t.os_id == "ubuntu") {
        const char* name =
            t.datacenter ? (open ? "ubuntu_driver_server_open" : "ubuntu_driver_server") : (open ? "ubuntu_driver_open" : "ubuntu_driver");
        const auto pkg = ctx.kb.package_name(name, {{"branch", std::to_string(branch)}}).value_or(fmt::format("nvidia-driver-{}", branch));
        s.notes.emplace_back(
            "Ubuntu's own packages: prebuilt, signed kernel modules that follow kernel updates (`ubuntu-drivers devices` lists the options).");
        s.commands.emplace_back("sudo apt-get update");
        s.commands.push_back("sudo apt-get install -y " + pkg);
        dkms = false;
    } else if (t.os_id == "debian") {
        const auto release = ctx.kb.distro_release(t.os_id, t.os_version);
        const int own = release && release->distro_driver_branch ? *release->distro_driver_branch : 0;
        if (own >= need->major() && (!modules || modules->proprietary)) {
            s.notes.push_back(fmt::format("Debian's own nvidia-driver (branch {}) is new enough: the distribution's packages.", own));
            s.commands.emplace_back(
                "sudo add-apt-repository -y contrib && sudo add-apt-repository -y non-free && sudo add-apt-repository -y non-free-firmware");
            s.commands.emplace_back("sudo apt-get update");
            s.commands.emplace_back("sudo apt-get install -y linux-headers-$(uname -r) nvidia-driver firmware-misc-nonfree");
            plan.driver_branch = own;
            plan.driver_after = Version({own});
        } else if (release && !release->cuda_repo.empty()) {
            s.notes.emplace_back("Debian's nvidia-driver is too old here: NVIDIA's CUDA repository has the branch.");
            for (auto& line : keyring_commands(release->cuda_repo, t, ctx.kb)) s.commands.push_back(line);
            const auto pkg =
                ctx.kb.package_name(open ? "nvidia_driver_open" : "nvidia_driver_proprietary", {{"branch", std::to_string(branch)}})
                    .value_or("cuda-drivers");
            s.commands.push_back("sudo apt-get install -y linux-headers-$(uname -r) " + pkg);
        } else {
            routed = false;
        }
    } else {
        routed = false;
    }
    if (!routed)
        s.commands.push_back(
            fmt::format("# install the NVIDIA driver branch {} or newer{} with this distribution's packages "
                        "(or NVIDIA's repository), then reboot",
                        branch, open ? " (open kernel modules)" : ""));
    if (t.secure_boot == "enabled" && dkms) {
        s.notes.emplace_back("Secure Boot is on: the DKMS-built module must be signed with an enrolled key (MOK), or it will not load.");
        s.commands.emplace_back(t.os_id == "ubuntu" ? "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der   # choose a one-time password"
                                                    : "sudo mokutil --import /var/lib/dkms/mok.pub   # choose a one-time password");
        s.notes.emplace_back("At the reboot the blue MOK manager appears: Enroll MOK → Continue → the password.");
    }
    plan.chosen.push_back(
        {"driver", fmt::format("branch {}{}", *plan.driver_branch, open && *plan.driver_branch == branch ? " (open kernel modules)" : ""),
         fmt::format("{}; {}", t.driver ? "the installed " + t.driver->str() + " is older than " + need->str() : "no driver is installed",
                     *plan.driver_branch != branch       ? "the distribution's own driver branch is new enough"
                     : modules && modules->driver_branch ? fmt::format("{} is the branch driver_kernel_modules.tsv names for {} GPUs",
                                                                       *modules->driver_branch, t.architecture)
                                                         : std::string("the branch CUDA needs"))});
    s.commands.emplace_back("sudo reboot");
    s.reboot = true;
    s.checks.emplace_back("nvidia-smi");
    s.checks.push_back(version_check(*need));
    plan.steps.push_back(std::move(s));
}

}  // namespace cudoctor::recipe::detail
