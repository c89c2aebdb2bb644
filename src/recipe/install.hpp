#pragma once
// The one source of install commands. `check`'s and `explain`'s fixes and `plan`'s steps all
// ask here, for a Distro, so the same machine always gets the same command: the driver package
// and branch, NVIDIA's repository setup, the toolkit and cuDNN packages (or runfile and archive),
// gcc, and the shell lines around them. Nothing here runs anything.
#include <optional>
#include <string>
#include <vector>

#include "common/version.hpp"
#include "kb/kb.hpp"
#include "recipe/distro.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::recipe {

/// "sudo apt-get update && sudo apt-get install -y a b" (apt), the same words for dnf / zypper /
/// pacman where the ID says so; a comment line naming the packages for an unknown distribution.
[[nodiscard]] std::string install_packages(const Distro& d, const std::vector<std::string>& packages);

/// The lines that add NVIDIA's CUDA repository `repo` ("ubuntu2204", "debian12", "wsl-ubuntu"):
/// its keyring package first, or apt rejects the repository.
[[nodiscard]] std::vector<std::string> keyring_commands(const Distro& d, const std::string& repo, const kb::Kb& kb);
/// NVIDIA's apt repository for this distribution ("ubuntu2204", "wsl-ubuntu"); "" when it has none.
[[nodiscard]] std::string cuda_repo_of(const Distro& d, const kb::Kb& kb);

/// Commands as one block, one per line (what a fix prints).
[[nodiscard]] std::string as_script(const std::vector<std::string>& commands);

// ---- the driver --------------------------------------------------------------------------------

/// What the driver must do on this machine.
struct DriverNeed {
    std::vector<std::string> architectures;  ///< of every GPU ("Ampere"): the oldest decides the branch
    std::optional<int> min_branch;           ///< the branch the CUDA in use needs (its minimum driver's major)
    bool nouveau = false;                    ///< nouveau holds the GPU: blacklist it first
    std::string secure_boot;                 ///< "enabled": a module built by DKMS must be signed with an enrolled key
    /// Offline (plan --offline): the driver bundled in this CUDA runfile, when it is new enough.
    std::optional<std::string> offline_runfile;
    std::optional<Version> offline_runfile_driver;
};

/// The facts of a probed machine the driver install depends on (its GPUs' architectures, nouveau,
/// Secure Boot), with the branch the CUDA in use needs.
[[nodiscard]] DriverNeed driver_need(const snapshot::Snapshot& snap, std::optional<int> min_branch = {});

enum class DriverSource { distribution, cuda_repository, runfile, windows, unrouted };

/// How the driver gets installed here. `branch` and `open` are what the commands really install
/// (title() is made from them), so a title can never name another driver than its commands.
struct DriverInstall {
    DriverSource source = DriverSource::unrouted;
    int branch = 0;                     ///< the branch the commands install (Debian's own branch when it is used)
    bool open = false;                  ///< the open kernel modules
    std::optional<Version> version;     ///< an exact driver version where known (the runfile's)
    std::vector<std::string> notes;     ///< why, and what to watch for
    std::vector<std::string> commands;  ///< in order; the last is "sudo reboot" except under WSL2
    bool reboot = false;

    /// "NVIDIA driver 580 with the open kernel modules", "Debian's NVIDIA driver 535".
    [[nodiscard]] std::string title() const;
};

/// The driver install for `need` on `d`: Ubuntu's nvidia-driver-N[-server][-open] packages,
/// Debian's own nvidia-driver where its branch supports these GPUs and is new enough, else
/// NVIDIA's CUDA repository (keyring first); the runfile's bundled driver offline; the Windows
/// driver under WSL2; a comment naming the branch where no route is known. The nouveau blacklist
/// comes first and the Secure Boot key enrolment after a DKMS build where the machine needs them.
[[nodiscard]] DriverInstall driver_install(const Distro& d, const DriverNeed& need, const kb::Kb& kb);

/// The lines that build the DKMS modules (the nvidia one among them) for `kernel`: its headers
/// package (linux-headers-K with apt, kernel-devel-K with dnf; a comment elsewhere), then
/// `dkms autoinstall -k K`, then loading the module.
[[nodiscard]] std::vector<std::string> kernel_module_rebuild(const Distro& d, const std::string& kernel, const kb::Kb& kb);

/// `cudoctor verify-installer FILE` as a plan step between a download and its use: it exits 1 on
/// a file cut short or corrupt, so a plan script (set -e) stops before running it.
[[nodiscard]] std::string verify_installer_command(const std::string& file);
/// The lines that blacklist nouveau and rebuild the initramfs (a reboot makes them take effect).
[[nodiscard]] std::vector<std::string> nouveau_blacklist(const Distro& d);

// ---- the toolkit -------------------------------------------------------------------------------

struct ToolkitInstall {
    std::string method;   ///< "deb" | "runfile"
    std::string package;  ///< cuda-toolkit-X-Y (deb)
    std::string runfile;  ///< the runfile's name (runfile)
    std::vector<std::string> notes;
    std::vector<std::string> commands;  ///< the install, then PATH / LD_LIBRARY_PATH and ld.so.conf.d
    std::vector<std::string> checks;    ///< lines that succeed once it works
};

/// CUDA `release` (12.4.1, or 12.4: its newest update the KB knows) into `dir`: cuda-toolkit-X-Y
/// from NVIDIA's repository where it publishes that minor for this distribution (never the cuda /
/// cuda-X-Y meta-packages, which pull a driver), else the runfile with --toolkit (no driver).
[[nodiscard]] ToolkitInstall toolkit_install(const Distro& d, const Version& release, const std::string& dir, bool offline, const kb::Kb& kb);
/// The folder a toolkit of this release installs into: /usr/local/cuda-X.Y.
[[nodiscard]] std::string toolkit_dir(const Version& release);

// ---- cuDNN -------------------------------------------------------------------------------------

struct CudnnInstall {
    std::string location;  ///< "system" (packages) | "toolkit" (the tar archive into a toolkit folder)
    std::string title;
    std::vector<std::string> notes;
    std::vector<std::string> commands;
    std::vector<std::string> checks;
};

/// cuDNN `version` (9.1.0; 9 when only the major is known) built for CUDA `cuda` (12.4, or 12): the
/// libcudnnN-cuda-M packages from NVIDIA's repository (pinned to the release and held where the
/// release is known), else the tar archive copied with its links into `dir` (a toolkit folder;
/// "" for /usr/local/cudnn-V with an ld.so.conf.d entry).
[[nodiscard]] CudnnInstall cudnn_install(const Distro& d, const Version& version, const Version& cuda, const std::string& dir, bool offline,
                                         const kb::Kb& kb);

// ---- gcc and the shell -------------------------------------------------------------------------

/// "export PATH=…:$PATH" lines for a toolkit folder, and the ~/.bashrc line that keeps them.
[[nodiscard]] std::string path_exports(const std::string& toolkit_path);
/// Lines making nvcc use g++-N (installing it first when `installed` lacks it): NVCC_PREPEND_FLAGS
/// for the shell, the CMake variable for builds.
[[nodiscard]] std::string use_host_gcc(const Distro& d, const std::vector<int>& installed, int gcc_major);

// ---- containers --------------------------------------------------------------------------------

/// The NVIDIA Container Toolkit for Docker, as NVIDIA's install guide gives it: its repository's
/// key and source list (apt) or repository file (dnf), the nvidia-container-toolkit package,
/// `nvidia-ctk runtime configure --runtime=docker` and a Docker restart; a comment naming the
/// guide for another distribution.
[[nodiscard]] std::vector<std::string> container_toolkit_install(const Distro& d, const kb::Kb& kb);

// ---- fixes for a probed machine (check's rules, explain, verify) -------------------------------

/// driver_install for this machine (its Distro, GPUs, nouveau, Secure Boot) with at least
/// `min_branch`, as one block of commands.
[[nodiscard]] std::string driver_fix(const snapshot::Snapshot& snap, const kb::Kb& kb, std::optional<int> min_branch = {});
/// toolkit_install of CUDA `release` into /usr/local/cuda-X.Y on this machine, as one block.
[[nodiscard]] std::string toolkit_fix(const snapshot::Snapshot& snap, const Version& release, const kb::Kb& kb);
/// cudnn_install of cuDNN `cudnn` for CUDA `cuda` on this machine, as one block.
[[nodiscard]] std::string cudnn_fix(const snapshot::Snapshot& snap, const Version& cudnn, const Version& cuda, const kb::Kb& kb);

}  // namespace cudoctor::recipe
