#pragma once
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace cudoctor::probe {

/// The distributions' own library folders (Debian's multiarch ones, Fedora's lib64, then the
/// plain one), where a .deb or .rpm puts the driver's libraries and cuDNN.
inline constexpr std::array<std::string_view, 4> kSystemLibraryFolders = {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
                                                                          "/usr/lib64", "/usr/lib"};

/// Whether a library file or SONAME belongs to the CUDA stack (driver, runtime, math libraries,
/// cuDNN, NCCL, …): "libcudart.so.12" yes, "libc.so.6" no.
bool is_cuda_library(std::string_view name);

/// The version encoded after ".so." in a library file name: "libcudnn.so.9.1.0" → "9.1.0",
/// "libcuda.so.550.54.14" → "550.54.14"; "" when there is none.
std::string_view so_version(std::string_view file_name);

}  // namespace cudoctor::probe
