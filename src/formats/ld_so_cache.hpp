#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// glibc's /etc/ld.so.cache (reference: formats.md section 3).
namespace cudoctor::formats {

/// Which layout a cache file has: "ld.so-1.7.0" only, "glibc-ld.so.cache1.1" only, or both in
/// one file (the new part hidden in the old part's string table).
enum class LdCacheFormat { old_format, new_format, compat };

/// "old", "new", "compat".
const char* to_string(LdCacheFormat f);

/// One library of the cache, as `ldconfig -p` prints it: `key (flags…) => value`.
struct LdCacheEntry {
    std::string key;              ///< the SONAME, e.g. "libcuda.so.1"
    std::string value;            ///< the path, e.g. "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
    std::uint32_t flags = 0;      ///< type (& 0xff) and architecture (& 0xff00) bits
    std::uint64_t hwcap = 0;      ///< legacy hwcap bits, or the glibc-hwcaps reference (new format)
    std::uint32_t osversion = 0;  ///< required OS ABI version (new format; 0 = none)
    std::string hwcaps_subdir;    ///< the glibc-hwcaps subdirectory ("x86-64-v3"), or empty
};

/// A whole cache. For the compat layout `entries` come from the new part.
struct LdCache {
    LdCacheFormat format = LdCacheFormat::new_format;
    std::vector<LdCacheEntry> entries;
    std::string generator;  ///< "ldconfig (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36", or empty
};

/// Parses /etc/ld.so.cache bytes: old ("ld.so-1.7.0"), new ("glibc-ld.so.cache1.1", either
/// byte order) and compat (old followed by new; the new part is used).
/// Errors: Errc::parse "not an ld.so.cache" when the magic is neither; Errc::unsupported for a
/// "glibc-ld.so.cache" of another version; Errc::truncated when the input is empty or a count,
/// offset or string points past the end; Errc::parse for a string that is not NUL-terminated
/// within 4096 bytes, an invalid byte-order flag or a malformed extension directory;
/// Errc::too_large when the strings would add up to far more than the input (a hostile file
/// pointing every entry at one huge string). Never throws.
Expected<LdCache> parse_ld_so_cache(std::string_view bytes);

/// The architecture label `ldconfig -p` prints after the type: "x86-64", "AArch64", "IA-64",
/// "x32", "64bit", "N32", "hard-float", "soft-float", "double-float", "nan2008", …
/// "" when the flags carry no architecture bits (plain libc6) or unknown ones.
std::string ld_cache_arch_name(std::uint32_t flags);

/// The type label: "libc4", "ELF", "libc5", "libc6", or "unknown".
std::string ld_cache_type_name(std::uint32_t flags);

/// The flags value ld.so of this build accepts (`_DL_CACHE_DEFAULT_ID`): 0x0303 on x86-64,
/// 0x0a03 on aarch64, 0x0803 on x32, 0x0003 elsewhere.
std::uint32_t ld_cache_native_flags();

/// True when `flags` is exactly this build's native id (see ld_cache_native_flags).
bool ld_cache_is_native(std::uint32_t flags);

/// The entry as one line of `ldconfig -p` (glibc 2.36), without the newline:
/// "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1".
std::string ld_cache_entry_line(const LdCacheEntry& entry);

}  // namespace cudoctor::formats
