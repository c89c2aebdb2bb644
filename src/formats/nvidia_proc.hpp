#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// Kernel-side driver signals under /proc (reference: formats.md 4.1, 4.2).
namespace cudoctor::formats {

/// What /proc/driver/nvidia/version says about the loaded kernel module.
struct NvidiaProcVersion {
    std::string version;   ///< "550.54.14"
    bool open = false;     ///< the open kernel module ("NVIDIA UNIX Open Kernel Module for x86_64")
    std::string compiler;  ///< "gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)", or empty
};

/// Parses /proc/driver/nvidia/version: the "NVRM version:" line gives the version (the first
/// dotted number after "Kernel Module", or after "NVRM version:" when that phrase is missing)
/// and the flavour; the "GCC version:" line, if any, the compiler.
/// Errors: Errc::parse "no \"NVRM version:\" line in /proc/driver/nvidia/version" or
/// "no driver version in the NVRM line: <line>".
Expected<NvidiaProcVersion> parse_nvidia_proc_version(std::string_view text);

/// One line of /proc/modules.
struct ProcModule {
    std::string name;               ///< "nvidia_uvm"
    std::uint64_t size = 0;         ///< bytes
    int refcount = 0;               ///< -1 when the kernel prints "-" (no module unloading)
    std::vector<std::string> deps;  ///< modules using this one ("a,b," → {"a", "b"})
    std::string state;              ///< "Live", "Loading", "Unloading"
    std::string taints;             ///< "POE" from "(POE)", or empty
};

/// Parses /proc/modules lines "name size refcount deps state [address] [(taints)]". A malformed
/// line (too few fields, a non-number size or refcount, a non-alphabetic state, stray fields) is
/// skipped, so a partly garbled file still yields its good lines.
/// Errors: Errc::parse only when the text has non-blank lines and none of them parses.
Expected<std::vector<ProcModule>> parse_proc_modules(std::string_view text);

}  // namespace cudoctor::formats
