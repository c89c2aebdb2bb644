#pragma once
#include <optional>
#include <string>
#include <string_view>

/// A Windows driver package's INF file, as WSL2 shows the Windows NVIDIA driver's store
/// (/usr/lib/wsl/drivers/nv_dispi.inf_amd64_<hash>/nv_dispi.inf), and NVIDIA's reading of a
/// Windows driver version.
namespace cudoctor::formats {

struct InfDriverVer {
    std::string date;     ///< "03/14/2024"
    std::string version;  ///< "31.0.15.5186": the Windows file version of the driver
};

/// The [Version] section's `DriverVer = date,version` (INF syntax: section names and keys are
/// case-insensitive, ';' starts a comment, values may be quoted). The text may be UTF-16LE (with
/// or without its byte-order mark), as many INF files are; a UTF-16 character outside ASCII ends
/// the value. nullopt when there is no DriverVer in [Version] or its version is not four numbers.
std::optional<InfDriverVer> parse_inf_driver_ver(std::string_view raw);

/// NVIDIA's version of a Windows driver file version: its last two fields hold it,
/// (third - 10) * 10000 + fourth = 55186 for 31.0.15.5186, read as 551.86 (27.21.14.5541 →
/// 455.41), the reading CaffeineMC/sodium's NvidiaDriverVersion.parse makes. nullopt when the
/// fields cannot be such a version (third < 10, fourth > 9999).
std::optional<std::string> nvidia_version_of_windows(std::string_view file_version);

}  // namespace cudoctor::formats
