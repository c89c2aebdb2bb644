#include "recipe/install.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "recipe/candidates.hpp"

namespace cudoctor::recipe {

namespace {

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

/// What the GPUs' architectures say about the driver (driver_kernel_modules.tsv).
struct ModuleFacts {
    std::optional<int> branch;    ///< the oldest GPU's branch
    bool all_open = false;        ///< every GPU can use the open modules
    bool some_need_open = false;  ///< some GPU has no proprietary module (Blackwell)
};

ModuleFacts module_facts(const std::vector<std::string>& architectures, const kb::Kb& kb) {
    ModuleFacts f;
    f.all_open = !architectures.empty();
    for (const auto& a : architectures) {
        const auto k = kb.kernel_modules_for(a);
        if (!k) {
            f.all_open = false;
            continue;
        }
        if (k->driver_branch && (!f.branch || *k->driver_branch < *f.branch)) f.branch = k->driver_branch;  // the oldest GPU decides
        f.all_open = f.all_open && k->open;
        f.some_need_open = f.some_need_open || !k->proprietary;
    }
    return f;
}

bool open_for(const ModuleFacts& f, int branch) { return f.all_open && (branch >= 560 || f.some_need_open); }

}  // namespace

std::string install_packages(const Distro& d, const std::vector<std::string>& packages) {
    if (d.apt()) return "sudo apt-get update && sudo apt-get install -y " + joined(packages);
    const auto& id = d.id;
    if (id == "fedora" || id == "rhel" || id == "rocky" || id == "almalinux" || id == "centos")
        return "sudo dnf install -y " + joined(packages);
    if (id == "opensuse-leap" || id == "opensuse-tumbleweed" || id == "sles") return "sudo zypper install -y " + joined(packages);
    if (id == "arch" || id == "manjaro") return "sudo pacman -S --needed " + joined(packages);
    return "# install with your distribution's package manager: " + joined(packages);
}

std::vector<std::string> kernel_module_rebuild(const Distro& d, const std::string& kernel, const kb::Kb& kb) {
    const auto& id = d.id;
    const bool dnf = id == "fedora" || id == "rhel" || id == "rocky" || id == "almalinux" || id == "centos";
    std::vector<std::string> out;
    if (d.apt())
        out.push_back(install_packages(d, {kb.package_name("kernel_headers_apt", {{"kernel", kernel}}).value_or("linux-headers-" + kernel)}));
    else if (dnf) out.push_back(install_packages(d, {"kernel-devel-" + kernel}));
    else out.push_back("# install the headers of kernel " + kernel + " (your distribution's kernel headers package)");
    out.push_back("sudo dkms autoinstall -k " + kernel);
    out.emplace_back("sudo modprobe nvidia");
    return out;
}

std::vector<std::string> container_toolkit_install(const Distro& d, const kb::Kb& kb) {
    constexpr std::string_view kKeyring = "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg";
    constexpr std::string_view kGuide = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html";
    // The names and addresses are the KB's (package_names.tsv); a --kb table without them gets the guide.
    const auto package = kb.package_name("container_toolkit", {});
    const auto key = kb.package_name("container_toolkit_gpgkey_url", {});
    const auto list = kb.package_name("container_toolkit_list_url", {});
    const auto repo = kb.package_name("container_toolkit_repo_url", {});
    const auto& id = d.id;
    const bool dnf = id == "fedora" || id == "rhel" || id == "rocky" || id == "almalinux" || id == "centos";
    std::vector<std::string> out;
    if (d.apt() && package && key && list) {
        out.emplace_back("# the NVIDIA Container Toolkit's repository: its key, then its source list signed by that key");
        out.push_back(fmt::format("curl -fsSL {} | sudo gpg --dearmor -o {}", *key, kKeyring));
        out.push_back(
            fmt::format("curl -s -L {} | sed 's#deb https://#deb [signed-by={}] https://#g' | sudo tee "
                        "/etc/apt/sources.list.d/nvidia-container-toolkit.list",
                        *list, kKeyring));
        out.push_back(install_packages(d, {*package}));
    } else if (dnf && package && repo) {
        out.push_back("curl -s -L " + *repo + " | sudo tee /etc/yum.repos.d/nvidia-container-toolkit.repo");
        out.push_back(install_packages(d, {*package}));
    } else {
        out.push_back(fmt::format("# install the NVIDIA Container Toolkit as NVIDIA's guide says for {}: {}", d.label(), kGuide));
    }
    out.emplace_back("sudo nvidia-ctk runtime configure --runtime=docker");
    out.emplace_back("sudo systemctl restart docker");
    return out;
}

std::string cuda_repo_of(const Distro& d, const kb::Kb& kb) {
    if (d.wsl) return d.id == "ubuntu" ? "wsl-ubuntu" : "";
    auto release = kb.distro_release(d.id, d.version);
    return release ? release->cuda_repo : "";
}

std::vector<std::string> keyring_commands(const Distro& d, const std::string& repo, const kb::Kb& kb) {
    const auto url =
        kb.package_name("cuda_keyring_url", {{"distro", repo}, {"arch", d.arch}})
            .value_or(fmt::format("https://developer.download.nvidia.com/compute/cuda/repos/{}/{}/cuda-keyring_1.1-1_all.deb", repo, d.arch));
    std::vector<std::string> out = {"# NVIDIA's CUDA repository (" + repo + "): its keyring package first, or apt rejects the repository",
                                    "wget -N " + url, "sudo dpkg -i cuda-keyring_1.1-1_all.deb", "sudo apt-get update"};
    if (d.debian()) out.insert(out.begin() + 1, "sudo add-apt-repository -y contrib   # Debian: the CUDA repository needs contrib");
    return out;
}

std::string as_script(const std::vector<std::string>& commands) {
    std::string out;
    for (const auto& c : commands) out += (out.empty() ? "" : "\n") + c;
    return out;
}

// ---- the driver --------------------------------------------------------------------------------

DriverNeed driver_need(const snapshot::Snapshot& snap, std::optional<int> min_branch) {
    DriverNeed need;
    for (const auto& g : snap.gpus)
        if (!g.architecture.empty()) need.architectures.push_back(g.architecture);
    need.min_branch = min_branch;
    need.nouveau =
        std::find(snap.driver.loaded_modules.begin(), snap.driver.loaded_modules.end(), "nouveau") != snap.driver.loaded_modules.end() ||
        std::any_of(snap.gpus.begin(), snap.gpus.end(), [](const auto& g) { return g.bound_driver == "nouveau"; });
    need.secure_boot = snap.platform.secure_boot;
    return need;
}

std::string verify_installer_command(const std::string& file) {
    // Exit 1 on a download cut short or corrupt ("gzip: stdin: invalid compressed data" only at
    // the end of the install otherwise): the plan script stops here, before anything is installed.
    return "cudoctor verify-installer " + file;
}

std::vector<std::string> nouveau_blacklist(const Distro& d) {
    return {"printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf",
            d.rebuild_initramfs()};
}

std::string DriverInstall::title() const {
    if (source == DriverSource::windows) return "the Windows NVIDIA driver";
    const std::string what = version ? version->str() : std::to_string(branch);
    return fmt::format("NVIDIA driver {}{}", what, open ? " with the open kernel modules" : "");
}

DriverInstall driver_install(const Distro& d, const DriverNeed& need, const kb::Kb& kb) {
    DriverInstall out;
    if (d.wsl) {
        out.source = DriverSource::windows;
        out.notes.emplace_back("Under WSL2 the Windows NVIDIA driver serves the GPU (/usr/lib/wsl/lib/libcuda.so.1).");
        out.commands.emplace_back("# update the NVIDIA driver on Windows; never install a Linux NVIDIA driver inside WSL2");
        return out;
    }
    const auto facts = module_facts(need.architectures, kb);
    int branch = facts.branch.value_or(kb.newest_driver_branch().value_or(580));
    if (need.min_branch && *need.min_branch > branch) branch = *need.min_branch;
    out.branch = branch;
    out.open = open_for(facts, branch);

    if (need.nouveau) {
        out.notes.emplace_back("nouveau holds the GPU now: blacklist it, or the nvidia module cannot bind.");
        for (auto& line : nouveau_blacklist(d)) out.commands.push_back(std::move(line));
    }
    bool dkms = true;
    bool legacy_unpackaged = false;  // a legacy branch no package of this release carries
    if (need.offline_runfile && need.offline_runfile_driver) {
        out.source = DriverSource::runfile;
        out.version = need.offline_runfile_driver;
        out.branch = need.offline_runfile_driver->major();
        out.open = open_for(facts, out.branch);
        out.notes.push_back("Offline: the driver bundled in the CUDA runfile (" + need.offline_runfile_driver->str() +
                            "); copy the runfile here and check it with `cudoctor verify-installer` first.");
        if (d.apt()) out.commands.emplace_back("sudo apt-get install -y build-essential linux-headers-$(uname -r)   # from local media");
        out.commands.push_back(verify_installer_command(*need.offline_runfile));
        out.commands.push_back(fmt::format("sudo sh {} --silent --driver{}", *need.offline_runfile, out.open ? " -m=kernel-open" : ""));
    } else if (d.ubuntu_family()) {
        out.source = DriverSource::distribution;
        const char* name = d.datacenter ? (out.open ? "ubuntu_driver_server_open" : "ubuntu_driver_server")
                                        : (out.open ? "ubuntu_driver_open" : "ubuntu_driver");
        const auto pkg = kb.package_name(name, {{"branch", std::to_string(branch)}})
                             .value_or(fmt::format("nvidia-driver-{}{}{}", branch, d.datacenter ? "-server" : "", out.open ? "-open" : ""));
        out.notes.emplace_back(
            "Ubuntu's own packages: prebuilt, signed kernel modules that follow kernel updates (`ubuntu-drivers devices` lists the options).");
        out.commands.emplace_back("sudo apt-get update");
        out.commands.push_back("sudo apt-get install -y " + pkg);
        dkms = false;
    } else if (d.debian()) {
        // Debian's own nvidia-driver (proprietary modules) when its branch is new enough for the
        // CUDA in use and still supports the oldest GPU; else NVIDIA's CUDA repository.
        const auto release = kb.distro_release(d.id, d.version);
        const int own = release && release->distro_driver_branch ? *release->distro_driver_branch : 0;
        const bool own_fits =
            own > 0 && own >= need.min_branch.value_or(0) && (!facts.branch || own <= *facts.branch) && !facts.some_need_open;
        // The oldest GPU's last branch (Kepler: 470) as Debian packages it (nvidia-tesla-470-driver),
        // where this release has it and it is new enough for the CUDA in use.
        const auto legacy = !own_fits && release && facts.branch && *facts.branch >= need.min_branch.value_or(0)
                                ? kb.package_name(fmt::format("debian_driver_{}_{}", release->codename, *facts.branch), {})
                                : std::nullopt;
        if (legacy) {
            out.source = DriverSource::distribution;
            out.branch = *facts.branch;
            out.open = false;
            out.notes.push_back(
                fmt::format("These GPUs' last driver branch is {}: Debian packages it as {} (non-free); its own "
                            "nvidia-driver ({}) no longer supports them.",
                            out.branch, *legacy, own));
            out.commands.emplace_back(
                "sudo add-apt-repository -y contrib && sudo add-apt-repository -y non-free && sudo add-apt-repository -y non-free-firmware");
            out.commands.emplace_back("sudo apt-get update");
            out.commands.push_back("sudo apt-get install -y linux-headers-$(uname -r) " + *legacy);
        } else if (own_fits) {
            out.source = DriverSource::distribution;
            out.branch = own;
            out.open = false;
            out.notes.push_back(fmt::format("Debian's own nvidia-driver (branch {}) is new enough: the distribution's packages.", own));
            out.commands.emplace_back(
                "sudo add-apt-repository -y contrib && sudo add-apt-repository -y non-free && sudo add-apt-repository -y non-free-firmware");
            out.commands.emplace_back("sudo apt-get update");
            out.commands.emplace_back("sudo apt-get install -y linux-headers-$(uname -r) nvidia-driver firmware-misc-nonfree");
        } else if (facts.branch && kb.newest_driver_branch() && *facts.branch < *kb.newest_driver_branch()) {
            // A legacy branch (Kepler: 470) this release does not package: whether NVIDIA's
            // repository for it carries that branch is not known, so no package is named.
            out.branch = *facts.branch;
            out.open = false;
            out.notes.push_back(
                fmt::format("No package of driver branch {} is known for {} {}: these GPUs' last branch.", out.branch, d.id, d.version));
            legacy_unpackaged = true;
            out.commands.push_back(
                fmt::format("# no {} {} package of NVIDIA driver branch {} is known: NVIDIA's driver runfile of that branch, "
                            "or a release that packages it (Debian 12: nvidia-tesla-{}-driver), then reboot",
                            d.id, d.version, out.branch, out.branch));
        } else if (release && !release->cuda_repo.empty()) {
            out.source = DriverSource::cuda_repository;
            out.notes.emplace_back("Debian's nvidia-driver is too old here: NVIDIA's CUDA repository has the branch.");
            for (auto& line : keyring_commands(d, release->cuda_repo, kb)) out.commands.push_back(std::move(line));
            const auto pkg =
                kb.package_name(out.open ? "nvidia_driver_open" : "nvidia_driver_proprietary", {{"branch", std::to_string(branch)}})
                    .value_or("cuda-drivers");
            out.commands.push_back("sudo apt-get install -y linux-headers-$(uname -r) " + pkg);
        }
    }
    if (out.source == DriverSource::unrouted && !legacy_unpackaged)
        out.commands.push_back(
            fmt::format("# install the NVIDIA driver branch {} or newer{} with this distribution's packages "
                        "(or NVIDIA's repository), then reboot",
                        branch, out.open ? " (open kernel modules)" : ""));
    if (need.secure_boot == "enabled" && dkms) {
        out.notes.emplace_back("Secure Boot is on: the DKMS-built module must be signed with an enrolled key (MOK), or it will not load.");
        out.commands.emplace_back(d.ubuntu_family() ? "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der   # choose a one-time password"
                                                    : "sudo mokutil --import /var/lib/dkms/mok.pub   # choose a one-time password");
        out.notes.emplace_back("At the reboot the blue MOK manager appears: Enroll MOK → Continue → the password.");
    }
    out.commands.emplace_back("sudo reboot");
    out.reboot = true;
    return out;
}

// ---- the toolkit -------------------------------------------------------------------------------

std::string toolkit_dir(const Version& release) { return "/usr/local/cuda-" + release.truncated(2).str(); }

ToolkitInstall toolkit_install(const Distro& d, const Version& release_in, const std::string& dir, bool offline, const kb::Kb& kb) {
    std::optional<kb::ToolkitRelease> rel = release_in.size() >= 3 ? kb.toolkit_release(release_in) : std::nullopt;
    if (!rel) rel = detail::toolkit_update(release_in, std::nullopt, kb);
    const Version release = release_in.size() >= 3 || !rel ? release_in : rel->toolkit;
    const Version minor = release.truncated(2);
    const std::string mm = fmt::format("{}-{}", minor.major(), minor.minor());
    const std::string repo = cuda_repo_of(d, kb);
    const auto coverage = repo.empty() ? std::nullopt : kb.cuda_repository(repo);
    const bool deb = !offline && d.apt() && coverage && coverage->publishes(minor);

    ToolkitInstall out;
    if (deb) {
        out.method = "deb";
        out.package = kb.package_name("cuda_toolkit", {{"major", std::to_string(minor.major())}, {"minor", std::to_string(minor.minor())}})
                          .value_or("cuda-toolkit-" + mm);
        out.notes.push_back(
            fmt::format("{} installs the toolkit without a driver. Never `cuda` or `cuda-{}`: those meta-packages pull a "
                        "driver and replace the one that works.",
                        out.package, mm));
        if (d.wsl)
            out.notes.emplace_back(
                "Under WSL2 only the wsl-ubuntu repository: the ubuntu2204/ubuntu2404 ones carry driver packages that break WSL2's CUDA.");
        for (auto& line : keyring_commands(d, repo, kb)) out.commands.push_back(std::move(line));
        out.commands.push_back("sudo apt-get install -y " + out.package);
    } else {
        out.method = "runfile";
        out.runfile = rel ? rel->runfile : "";
        const bool known = !out.runfile.empty();
        if (!known) out.runfile = fmt::format("cuda_{}_*_linux.run", release.str());  // a release the KB does not list
        if (offline)
            out.notes.push_back("Offline: bring the runfile on other media and check it with `cudoctor verify-installer " + out.runfile +
                                "` first.");
        else if (!coverage || !coverage->publishes(minor))
            out.notes.push_back(fmt::format("NVIDIA's repository for {} {} has no cuda-toolkit-{} ({}): the runfile is the route.", d.id,
                                            d.version, mm, repo.empty() ? "no repository" : "cuda_repos.tsv"));
        out.notes.emplace_back(
            "--toolkit installs the toolkit only: the runfile's bundled driver is never installed over the one that works.");
        if (!known) {
            out.commands.push_back(
                fmt::format("# download the CUDA {} runfile for Linux from https://developer.nvidia.com/cuda-toolkit-archive", release.str()));
        } else if (!offline) {
            const auto url =
                kb.package_name("cuda_runfile_url", {{"release", release.str()}, {"runfile", out.runfile}})
                    .value_or("https://developer.download.nvidia.com/compute/cuda/" + release.str() + "/local_installers/" + out.runfile);
            // -c resumes a download cut short (gigabytes over a flaky line) instead of starting over.
            out.commands.push_back("wget -c " + url);
        }
        out.commands.push_back(verify_installer_command(out.runfile));
        out.commands.push_back(fmt::format("sudo sh {} --silent --toolkit --toolkitpath={}", out.runfile, dir));
    }
    // The environment: this shell, future shells, and services (which read no ~/.bashrc).
    out.commands.push_back(fmt::format("echo 'export PATH={}/bin${{PATH:+:$PATH}}' >> ~/.bashrc", dir));
    out.commands.push_back(fmt::format("echo 'export LD_LIBRARY_PATH={}/lib64${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}' >> ~/.bashrc", dir));
    out.commands.push_back(fmt::format("export PATH={}/bin${{PATH:+:$PATH}}", dir));
    out.commands.push_back(
        fmt::format("echo {}/lib64 | sudo tee /etc/ld.so.conf.d/cuda-{}.conf && sudo ldconfig   # services and systemd units", dir, mm));
    out.checks.push_back(fmt::format("{}/bin/nvcc --version | grep -q 'release {}'", dir, minor.str()));
    out.checks.push_back(fmt::format(
        "printf 'int main(){{return 0;}}\\n' > /tmp/cudoctor-plan.cu && {}/bin/nvcc /tmp/cudoctor-plan.cu -o /tmp/cudoctor-plan && /tmp/cudoctor-plan",
        dir));
    out.checks.emplace_back("ldconfig -p | grep -q libcudart.so");
    return out;
}

// ---- cuDNN -------------------------------------------------------------------------------------

CudnnInstall cudnn_install(const Distro& d, const Version& version, const Version& cuda, const std::string& dir_in, bool offline,
                           const kb::Kb& kb) {
    const int major = cuda.major();
    const std::string repo = cuda_repo_of(d, kb);
    const bool deb = !offline && d.apt() && !d.wsl && !repo.empty() && version.major() >= 8;
    const bool pinned = version.size() >= 2;
    const std::string v = version.truncated(std::min<std::size_t>(version.size(), 3)).str();
    CudnnInstall out;
    if (deb) {
        out.location = "system";
        std::vector<std::string> pkgs;
        if (version.major() >= 9) {
            const std::string pin = pinned ? "=" + v + ".*" : "";
            pkgs = {fmt::format("libcudnn{}-cuda-{}{}", version.major(), major, pin),
                    fmt::format("libcudnn{}-dev-cuda-{}{}", version.major(), major, pin)};
        } else {
            // NVIDIA's libcudnn8 versions name the CUDA build after the release (8.9.7.29-1+cuda12.2,
            // 8.9.7.29-1+cuda11.8). apt matches a version only exactly or by a trailing '*' (a '*' in
            // the middle is "Version … was not found", and a prefix alone picks the newest CUDA
            // build): the exact version is read from the repository first.
            pkgs = {"libcudnn8=$cudnn8", "libcudnn8-dev=$cudnn8"};
        }
        out.title = fmt::format("cuDNN {} for CUDA {} (packages from NVIDIA's repository)", v, major);
        out.notes.emplace_back("The keyring step is the one people forget: without it apt cannot find or trust the cuDNN packages.");
        if (pinned) out.notes.emplace_back("Pinned to this release and held, so apt upgrade does not move cuDNN under the framework.");
        for (auto& line : keyring_commands(d, repo, kb)) out.commands.push_back(std::move(line));
        if (version.major() < 9) {
            std::string release = pinned ? v : "8";
            for (std::size_t at = 0; (at = release.find('.', at)) != std::string::npos; at += 2) release.replace(at, 1, "\\.");
            out.commands.push_back(
                fmt::format("cudnn8=$(apt-cache madison libcudnn8 | awk '{{print $3}}' | grep -m1 -E '^{}\\.[0-9.]*-1\\+cuda{}\\.')",
                            release, major));
        }
        std::string install = "sudo apt-get install -y", hold = "sudo apt-mark hold";
        for (const auto& p : pkgs) {
            install += p.find('=') == std::string::npos ? " " + p : p.find('$') != std::string::npos ? " \"" + p + "\"" : " '" + p + "'";
            hold += " " + p.substr(0, p.find('='));
        }
        out.commands.push_back(install);
        if (pinned) out.commands.push_back(hold);
        out.checks.push_back(fmt::format("ldconfig -p | grep -q 'libcudnn.so.{}'", version.major()));
        if (pinned) out.checks.push_back(fmt::format("dpkg -l '{}' | grep -q '^hi'", pkgs.front().substr(0, pkgs.front().find('='))));
    } else {
        out.location = "toolkit";
        const std::string dir = dir_in.empty() ? fmt::format("/usr/local/cudnn-{}", v) : dir_in;
        const std::string archive = version.major() >= 8 && (version >= Version({8, 3}) || !pinned)
                                        ? fmt::format("cudnn-linux-x86_64-{}.*_cuda{}*-archive", v, major)
                                        : fmt::format("cudnn-{}*-linux-x64-v{}.*", cuda.str(), v);
        out.title = fmt::format("cuDNN {} for CUDA {} (tar archive into {})", v, major, dir);
        out.notes.push_back(
            fmt::format("Download {}.tar.xz from https://developer.nvidia.com/cudnn-archive (an NVIDIA login) to this folder.", archive));
        out.notes.emplace_back(
            "cp -P keeps the links (libcudnn.so → libcudnn.so.N → libcudnn.so.N.x.y): a plain cp copies each library three times "
            "and breaks the soname chain. Into the versioned folder, so switching /usr/local/cuda does not lose it.");
        out.commands.push_back(verify_installer_command(archive + ".tar.xz"));
        out.commands.push_back(fmt::format("tar -xf {}.tar.xz", archive));
        out.commands.push_back(fmt::format("sudo mkdir -p {0}/include {0}/lib64", dir));
        out.commands.push_back(fmt::format("sudo cp -P {}/include/cudnn*.h {}/include/", archive, dir));
        out.commands.push_back(fmt::format("sudo cp -P {}/lib/libcudnn* {}/lib64/", archive, dir));
        out.commands.push_back(fmt::format("sudo chmod a+r {0}/include/cudnn*.h {0}/lib64/libcudnn*", dir));
        if (dir_in.empty()) out.commands.push_back(fmt::format("echo {}/lib64 | sudo tee /etc/ld.so.conf.d/cudnn.conf", dir));
        out.commands.emplace_back("sudo ldconfig");
        out.checks.push_back(fmt::format("ls -l {}/lib64/libcudnn.so.{}", dir, version.major()));
        out.checks.push_back(fmt::format("ldconfig -p | grep -q 'libcudnn.so.{}'", version.major()));
    }
    return out;
}

// ---- gcc and the shell -------------------------------------------------------------------------

std::string path_exports(const std::string& toolkit_path) {
    return fmt::format(
        "export PATH={0}/bin${{PATH:+:$PATH}}\n"
        "export LD_LIBRARY_PATH={0}/lib64${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\n"
        "# to keep it: add the two lines above to ~/.bashrc",
        toolkit_path);
}

std::string use_host_gcc(const Distro& d, const std::vector<int>& installed, int gcc_major) {
    std::string out;
    const bool have = std::find(installed.begin(), installed.end(), gcc_major) != installed.end();
    if (!have) out += install_packages(d, {fmt::format("gcc-{}", gcc_major), fmt::format("g++-{}", gcc_major)}) + "\n";
    out += fmt::format(
        "export NVCC_PREPEND_FLAGS='-ccbin /usr/bin/g++-{0}'\n"
        "# CMake projects: cmake -DCMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-{0} …",
        gcc_major);
    return out;
}

// ---- fixes for a probed machine ---------------------------------------------------------------

std::string driver_fix(const snapshot::Snapshot& snap, const kb::Kb& kb, std::optional<int> min_branch) {
    return as_script(driver_install(distro_of(snap), driver_need(snap, min_branch), kb).commands);
}

std::string toolkit_fix(const snapshot::Snapshot& snap, const Version& release, const kb::Kb& kb) {
    return as_script(toolkit_install(distro_of(snap), release, toolkit_dir(release), false, kb).commands);
}

std::string cudnn_fix(const snapshot::Snapshot& snap, const Version& cudnn, const Version& cuda, const kb::Kb& kb) {
    return as_script(cudnn_install(distro_of(snap), cudnn, cuda, "", false, kb).commands);
}

}  // namespace cudoctor::recipe
