#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace cudoctor::probe {

/// Whether a library file or SONAME belongs to the CUDA stack (driver, runtime, math libraries,
/// cuDNN, NCCL, …): "libcudart.so.12" yes, "libc.so.6" no.
bool is_cuda_library(std::string_view name);

/// The version encoded after ".so." in a library file name: "libcudnn.so.9.1.0" → "9.1.0",
/// "libcuda.so.550.54.14" → "550.54.14"; "" when there is none.
std::string_view so_version(std::string_view file_name);

/// formats::library_names_in() (the same names, in the same order), found in one pass over
/// `bytes` that stops only at ".so." instead of one pass per stem stopping at each stem's first
/// letter: cuDNN 9's .rodata is megabytes of text, and 'l' is a common letter.
std::vector<std::string> find_library_names(std::string_view bytes, const std::vector<std::string_view>& stems);

}  // namespace cudoctor::probe
