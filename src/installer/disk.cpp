#include "installer/disk.hpp"

#include <sys/statfs.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cudoctor::installer {

std::string fs_type_name(std::uint64_t magic) {
    switch (magic) {
        case 0x4d44: return "vfat";
        case 0x2011BAB0: return "exfat";
        case 0x5346544e: return "ntfs";
        case 0x7366746e: return "ntfs3";
        case 0x65735546: return "fuseblk";
        case 0xEF53: return "ext4";
        case 0x58465342: return "xfs";
        case 0x9123683E: return "btrfs";
        case 0x01021994: return "tmpfs";
        case 0x794c7630: return "overlay";
        case 0x6969: return "nfs";
        case 0xFF534D42: return "cifs";
        case 0x2FC12FC1: return "zfs";
        case 0x01021997: return "9p";
        default: break;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(magic));
    return buf;
}

Expected<DiskInfo> disk_info(const std::string& folder) {
    struct statfs st {};
    if (::statfs(folder.c_str(), &st) != 0) {
        const int e = errno;
        return fail(e == ENOENT ? Errc::not_found : Errc::io, "cannot statfs " + folder + ": " + std::strerror(e));
    }
    DiskInfo d;
    d.path = folder;
    d.fs_type = fs_type_name(static_cast<std::uint64_t>(st.f_type));
    d.fat = d.fs_type == "vfat";
    d.free_bytes = static_cast<std::uint64_t>(st.f_bavail) * static_cast<std::uint64_t>(st.f_bsize);
    d.total_bytes = static_cast<std::uint64_t>(st.f_blocks) * static_cast<std::uint64_t>(st.f_bsize);
    return d;
}

}  // namespace cudoctor::installer
