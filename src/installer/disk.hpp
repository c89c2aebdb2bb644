#pragma once
// The filesystem an installer sits on and the one it would unpack to: its type (FAT cuts files
// at 4 GiB − 1 bytes) and its free space.
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "report/style.hpp"

namespace cudoctor::installer {

/// FAT32's largest file: one byte less than 4 GiB.
inline constexpr std::uint64_t kFat32MaxFile = 0xFFFFFFFFull;

struct DiskInfo {
    std::string path;              ///< the folder asked about
    std::string fs_type;           ///< "ext4", "vfat", "exfat", "ntfs", "xfs", "tmpfs", … or "0x…"
    bool fat = false;              ///< FAT12/16/32 (vfat, msdos): no file of 4 GiB or more
    std::uint64_t free_bytes = 0;  ///< available to an unprivileged user
    std::uint64_t total_bytes = 0;
};

/// statfs(2) of `folder`. Errc::not_found when it does not exist, Errc::io otherwise.
Expected<DiskInfo> disk_info(const std::string& folder);

/// The name of a statfs f_type value ("vfat" for MSDOS_SUPER_MAGIC), or "0x<hex>" when unknown.
std::string fs_type_name(std::uint64_t magic);

/// "4.0 GiB", "512 MiB", "37 KiB", "12 bytes": report::bytes_text's whole_from_ten style.
inline std::string human_bytes(std::uint64_t n) { return report::bytes_text(static_cast<double>(n), report::ByteStyle::whole_from_ten); }

}  // namespace cudoctor::installer
