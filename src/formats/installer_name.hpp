#pragma once
// What an NVIDIA installer's file name (and makeself label) says it holds. Pure functions.
#include <string>
#include <string_view>

namespace cudoctor::formats {

/// The versions an installer names. Empty strings where it names none.
struct InstallerName {
    std::string product;  ///< "cuda", "driver", "cudnn", "cuda-repo", "cudnn-repo", or ""
    std::string cuda;     ///< toolkit version "12.9.1" (or a major "12" for a cuDNN build)
    std::string driver;   ///< bundled or named driver "575.57.08"
    std::string cudnn;    ///< "9.3.0.75"
    std::string arch;     ///< "x86_64", "sbsa", "aarch64", "ppc64le", "amd64", "arm64"
};

/// Reads the versions from a file name (any folder part is ignored) such as
/// cuda_12.9.1_575.57.08_linux.run, NVIDIA-Linux-x86_64-550.54.14.run,
/// cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz,
/// cuda-repo-ubuntu2204-12-4-local_12.4.0-550.54.14-1_amd64.deb; then fills what is still
/// missing from a makeself `label` / `version_string` ("… for Linux-x86_64 550.54.14").
/// A name of no known pattern gives an empty InstallerName.
InstallerName read_installer_name(std::string_view path, std::string_view label = {}, std::string_view version_string = {});

/// The download URL NVIDIA publishes for this file name, or "" when the pattern is unknown:
/// developer.download.nvidia.com/compute/cuda/<ver>/local_installers/<file> for a toolkit runfile,
/// download.nvidia.com/XFree86/Linux-<arch>/<ver>/<file> for a driver runfile,
/// developer.download.nvidia.com/compute/cudnn/redist/cudnn/linux-<arch>/<file> for cuDNN.
std::string official_url(std::string_view path, const InstallerName& name);

}  // namespace cudoctor::formats
