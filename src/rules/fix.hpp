#pragma once
// Fix commands written for the machine in the Snapshot: its distribution and package manager,
// its GPU's driver branch, its toolkit paths. Rules call these instead of saying "install a
// newer driver".
#include <string>
#include <vector>

#include "kb/kb.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::rules::fix {

bool is_ubuntu(const snapshot::Platform& p);
bool is_debian(const snapshot::Platform& p);
/// Ubuntu, Debian and their derivatives (apt, dpkg).
bool uses_apt(const snapshot::Platform& p);

/// "sudo apt-get install -y a b" (apt machines) or the same words for dnf / zypper / pacman
/// where os-release says so; a comment line for an unknown distribution.
std::string install_packages(const snapshot::Platform& p, const std::vector<std::string>& packages);

/// The driver branch to install for these GPUs (the newest branch supporting the oldest GPU's
/// architecture, from the KB), or nullopt when no GPU architecture is known.
std::optional<int> driver_branch_for(const snapshot::Snapshot& snap, const kb::Kb& kb);
/// Exact commands installing a driver of at least `min_branch` (and the branch these GPUs need)
/// on this machine, ending with the reboot that loads it.
std::string install_driver(const snapshot::Snapshot& snap, const kb::Kb& kb, std::optional<int> min_branch = {});

/// "export PATH=…:$PATH" lines for a toolkit folder, and the ~/.bashrc line that keeps them.
std::string path_exports(const std::string& toolkit_path);
/// Lines making nvcc use g++-N: NVCC_PREPEND_FLAGS for the shell, the CMake variable for builds.
std::string use_host_gcc(const snapshot::Platform& p, int gcc_major);

/// The folder a toolkit path ends in ("/usr/local/cuda-12.4" → "12.4"), for messages.
std::string toolkit_label(const snapshot::Toolkit& tk);

}  // namespace cudoctor::rules::fix
