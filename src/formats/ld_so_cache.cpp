#include "formats/ld_so_cache.hpp"

#include <cinttypes>
#include <cstdio>
#include <exception>
#include <new>

#include "common/text.hpp"

namespace cudoctor::formats {
namespace {

constexpr std::string_view kOldMagic = "ld.so-1.7.0";
constexpr std::string_view kNewMagic = "glibc-ld.so.cache";
constexpr std::string_view kNewVersion = "1.1";
constexpr std::uint64_t kOldHeaderSize = 16;
constexpr std::uint64_t kOldEntrySize = 12;
constexpr std::uint64_t kNewHeaderSize = 48;
constexpr std::uint64_t kNewEntrySize = 24;
constexpr std::uint32_t kExtensionMagic = 0xEAA42174;
constexpr std::uint32_t kExtensionTagGenerator = 0;
constexpr std::uint32_t kExtensionTagHwcaps = 1;
// PATH_MAX: no SONAME or library path is longer, so a longer "string" is corruption.
constexpr std::uint64_t kMaxString = 4096;

// Thrown inside this file only (as bloaty does) and turned into an Error once, at the entry point.
struct CacheError {
    Error error;
};

[[noreturn]] void raise(Errc code, std::string message) { throw CacheError{Error{code, std::move(message)}}; }

/// What an error names ("new-format header", "entry 12 name"): put together only when an error
/// is raised, not for each of the thousand entries a cache holds.
struct What {
    static constexpr std::uint64_t kNoIndex = ~std::uint64_t{0};
    What(const char* t) : text(t) {}
    What(std::string_view t) : text(t) {}
    What(const std::string& t) : text(t) {}
    What(std::string_view t, std::uint64_t i, std::string_view s = {}) : text(t), index(i), suffix(s) {}
    std::string_view text;
    std::uint64_t index = kNoIndex;
    std::string_view suffix;

    std::string str() const {
        std::string out(text);
        if (index != kNoIndex) out += " " + std::to_string(index);
        out += suffix;
        return out;
    }
};

/// The input bytes, read only through range(): the single place where an offset and a length
/// are checked against the end of the file.
class CacheBytes {
  public:
    explicit CacheBytes(std::string_view data)
        // Every entry's strings are copied out. Real caches share strings (ldconfig merges
        // suffixes), so a total far above the file size means entries all aim at one long string.
        : m_data(data), m_budget(8 * static_cast<std::uint64_t>(data.size()) + 65536) {}

    std::uint64_t size() const { return m_data.size(); }
    void set_big_endian(bool big) { m_big_endian = big; }

    std::string_view range(std::uint64_t offset, std::uint64_t length, const What& what) const {
        if (offset > m_data.size() || length > m_data.size() - offset)
            raise(Errc::truncated, "ld.so.cache truncated: " + what.str() + " at offset " + std::to_string(offset) + " (" +
                                       std::to_string(length) + " bytes) runs past the end of the file (" + std::to_string(m_data.size()) +
                                       " bytes)");
        return m_data.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
    }

    std::uint64_t uint(std::uint64_t offset, std::size_t width, const What& what) const {
        const auto bytes = range(offset, width, what);
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < width; ++i) v = (v << 8) | static_cast<std::uint8_t>(bytes[m_big_endian ? i : width - 1 - i]);
        return v;
    }

    std::uint32_t u32(std::uint64_t offset, const What& what) const { return static_cast<std::uint32_t>(uint(offset, 4, what)); }

    /// The NUL-terminated string at `offset`, copied (and charged to the budget).
    std::string c_string(std::uint64_t offset, const What& what) {
        const std::uint64_t avail = offset <= size() ? size() - offset : 0;
        const auto window = range(offset, avail < kMaxString + 1 ? avail : kMaxString + 1, what);
        const auto nul = window.find('\0');
        if (nul == std::string_view::npos) {
            if (window.size() <= kMaxString)
                raise(Errc::truncated, "ld.so.cache truncated: " + what.str() + " at offset " + std::to_string(offset) +
                                           " has no terminating NUL before the end of the file (" + std::to_string(size()) + " bytes)");
            raise(Errc::parse, "ld.so.cache: " + what.str() + " at offset " + std::to_string(offset) + " is longer than " +
                                   std::to_string(kMaxString) + " bytes");
        }
        if (nul > m_budget)
            raise(Errc::too_large, "ld.so.cache: the strings of its entries add up to far more than the file (" + std::to_string(size()) +
                                       " bytes); it is corrupt");
        m_budget -= nul;
        return std::string(window.substr(0, nul));
    }

  private:
    std::string_view m_data;
    std::uint64_t m_budget;
    bool m_big_endian = false;
};

struct Extensions {
    std::string generator;
    std::uint64_t hwcaps_at = 0;  // file offset of an array of u32 string offsets
    std::uint64_t hwcaps_count = 0;
};

Extensions read_extensions(const CacheBytes& file, std::uint32_t offset) {
    Extensions ext;
    if (offset == 0) return ext;
    if (offset % 4 != 0)
        raise(Errc::parse, "ld.so.cache: extension directory offset " + std::to_string(offset) + " is not a multiple of 4");
    if (file.u32(offset, "extension directory") != kExtensionMagic)
        raise(Errc::parse, "ld.so.cache: extension directory at offset " + std::to_string(offset) + " has a bad magic");
    const std::uint32_t count = file.u32(offset + 4ULL, "extension directory");
    const std::uint64_t table = offset + 8ULL;
    file.range(table, 16ULL * count, "extension section table");
    std::string_view generator;
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t at = table + 16 * i;
        const std::uint32_t tag = file.u32(at, "extension section");
        const std::uint32_t data_at = file.u32(at + 8, "extension section");
        const std::uint32_t data_size = file.u32(at + 12, "extension section");
        const auto data = file.range(data_at, data_size, "extension section " + std::to_string(i));
        if (tag == kExtensionTagGenerator) {
            generator = data;
        } else if (tag == kExtensionTagHwcaps) {
            ext.hwcaps_at = data_at;
            ext.hwcaps_count = data_size / 4;
        }  // other tags: newer glibc data this reader does not use
    }
    ext.generator = std::string(generator);
    return ext;
}

bool is_hwcaps_reference(std::uint64_t hwcap) {
    // DL_CACHE_HWCAP_EXTENSION (bit 62) alone above an ISA level in bits 32..41.
    return ((hwcap >> 32) & ~std::uint64_t{0x3ff}) == (std::uint64_t{1} << 30);
}

/// The new-format part whose 48-byte header starts at `base` (0, or inside a compat file).
void read_new(CacheBytes& file, std::uint64_t base, LdCache& out) {
    const auto header = file.range(base, kNewHeaderSize, "new-format header");
    switch (static_cast<std::uint8_t>(header[28]) & 3) {
        case 1: raise(Errc::parse, "ld.so.cache: the byte-order flag is marked invalid");
        case 3: file.set_big_endian(true); break;
        default: break;  // 0 (unset, as before glibc 2.32) or 2: little-endian
    }
    const std::uint32_t nlibs = file.u32(base + 20, "new-format header");
    const std::uint32_t len_strings = file.u32(base + 24, "new-format header");
    const std::uint32_t extension_offset = file.u32(base + 32, "new-format header");
    const std::uint64_t entries_at = base + kNewHeaderSize;
    // Checked before reserving, so a hostile count cannot allocate more than the file holds.
    file.range(entries_at, kNewEntrySize * nlibs, std::to_string(nlibs) + " new-format entries");
    file.range(entries_at + kNewEntrySize * nlibs, len_strings, "string table");
    const Extensions ext = read_extensions(file, extension_offset);

    out.entries.reserve(nlibs);
    for (std::uint64_t i = 0; i < nlibs; ++i) {
        const std::uint64_t at = entries_at + kNewEntrySize * i;
        const What label("entry", i);
        LdCacheEntry e;
        e.flags = file.u32(at, label);
        const std::uint32_t key = file.u32(at + 4, label);
        const std::uint32_t value = file.u32(at + 8, label);
        e.osversion = file.u32(at + 12, label);
        e.hwcap = file.uint(at + 16, 8, label);
        e.key = file.c_string(base + key, What("entry", i, " name"));
        e.value = file.c_string(base + value, What("entry", i, " path"));
        const auto index = static_cast<std::uint32_t>(e.hwcap);
        if (is_hwcaps_reference(e.hwcap) && index < ext.hwcaps_count) {
            // ldconfig writes these string offsets relative to the new header, like key and value.
            const std::uint32_t name_at = file.u32(ext.hwcaps_at + 4ULL * index, What("entry", i, " glibc-hwcaps index"));
            e.hwcaps_subdir = file.c_string(base + name_at, What("entry", i, " glibc-hwcaps name"));
        }
        out.entries.push_back(std::move(e));
    }
    out.generator = ext.generator;
}

LdCache read_old_or_compat(CacheBytes& file) {
    LdCache out;
    file.range(0, kOldHeaderSize, "old-format header");
    const std::uint32_t nlibs = file.u32(12, "old-format header");
    file.range(kOldHeaderSize, kOldEntrySize * nlibs, std::to_string(nlibs) + " old-format entries");
    const std::uint64_t strings_at = kOldHeaderSize + kOldEntrySize * nlibs;
    // The new part, if any, hides at the start of the old string table, aligned to 8.
    const std::uint64_t new_at = (strings_at + 7) & ~std::uint64_t{7};
    const std::uint64_t magic_size = kNewMagic.size() + kNewVersion.size();
    if (new_at + magic_size <= file.size()) {
        const auto magic = file.range(new_at, magic_size, "new-format header");
        if (magic.substr(0, kNewMagic.size()) == kNewMagic && magic.substr(kNewMagic.size()) == kNewVersion) {
            out.format = LdCacheFormat::compat;
            read_new(file, new_at, out);
            return out;
        }
    }
    out.format = LdCacheFormat::old_format;
    out.entries.reserve(nlibs);
    for (std::uint64_t i = 0; i < nlibs; ++i) {
        const std::uint64_t at = kOldHeaderSize + kOldEntrySize * i;
        const What label("entry", i);
        LdCacheEntry e;
        e.flags = file.u32(at, label);
        const std::uint32_t key = file.u32(at + 4, label);
        const std::uint32_t value = file.u32(at + 8, label);
        e.key = file.c_string(strings_at + key, What("entry", i, " name"));
        e.value = file.c_string(strings_at + value, What("entry", i, " path"));
        out.entries.push_back(std::move(e));
    }
    return out;
}

LdCache read_cache(std::string_view bytes) {
    if (bytes.empty()) raise(Errc::truncated, "ld.so.cache truncated: the file is empty");
    CacheBytes file(bytes);
    if (bytes.starts_with(kOldMagic)) return read_old_or_compat(file);
    if (bytes.starts_with(kNewMagic)) {
        const auto version = file.range(kNewMagic.size(), kNewVersion.size(), "new-format header");
        if (version != kNewVersion)
            raise(Errc::unsupported, "ld.so.cache version \"" + text::printable(version) + "\" is not supported (only 1.1)");
        LdCache out;
        out.format = LdCacheFormat::new_format;
        read_new(file, 0, out);
        return out;
    }
    if (kOldMagic.starts_with(bytes) || kNewMagic.starts_with(bytes))
        raise(Errc::truncated, "ld.so.cache truncated: the file ends inside the magic (" + std::to_string(bytes.size()) + " bytes)");
    raise(Errc::parse, "not an ld.so.cache");
}

}  // namespace

const char* to_string(LdCacheFormat f) {
    switch (f) {
        case LdCacheFormat::old_format: return "old";
        case LdCacheFormat::new_format: return "new";
        case LdCacheFormat::compat: return "compat";
    }
    return "unknown";
}

Expected<LdCache> parse_ld_so_cache(std::string_view bytes) {
    try {
        return read_cache(bytes);
    } catch (const CacheError& e) {
        return Unexpected<Error>(e.error);
    } catch (const std::bad_alloc&) {
        return fail(Errc::too_large, "ld.so.cache: out of memory while reading it");
    } catch (const std::exception& e) {
        return fail(Errc::parse, std::string("ld.so.cache: ") + e.what());
    }
}

std::string ld_cache_type_name(std::uint32_t flags) {
    switch (flags & 0xff) {
        case 0: return "libc4";
        case 1: return "ELF";
        case 2: return "libc5";
        case 3: return "libc6";
        default: return "unknown";
    }
}

std::string ld_cache_arch_name(std::uint32_t flags) {
    // glibc sysdeps/generic/ldconfig.h FLAG_* values and elf/cache.c print_entry labels.
    switch (flags & 0xff00) {
        case 0x0100: return "64bit";  // SPARC
        case 0x0200: return "IA-64";
        case 0x0300: return "x86-64";
        case 0x0400: return "64bit";  // s390
        case 0x0500: return "64bit";  // PowerPC
        case 0x0600: return "N32";    // MIPS
        case 0x0700: return "64bit";  // MIPS n64
        case 0x0800: return "x32";
        case 0x0900: return "hard-float";  // ARM
        case 0x0a00: return "AArch64";
        case 0x0b00: return "soft-float";  // ARM
        case 0x0c00: return "nan2008";     // MIPS
        case 0x0d00: return "N32,nan2008";
        case 0x0e00: return "64bit,nan2008";
        case 0x0f00: return "soft-float";    // RISC-V
        case 0x1000: return "double-float";  // RISC-V
        case 0x1100: return "soft-float";    // LoongArch
        case 0x1200: return "double-float";  // LoongArch
        default: return "";
    }
}

std::uint32_t ld_cache_native_flags() {
#if defined(__x86_64__) && defined(__ILP32__)
    return 0x0803;
#elif defined(__x86_64__)
    return 0x0303;
#elif defined(__aarch64__) && defined(__LP64__)
    return 0x0a03;
#else
    return 0x0003;
#endif
}

bool ld_cache_is_native(std::uint32_t flags) { return flags == ld_cache_native_flags(); }

std::string ld_cache_entry_line(const LdCacheEntry& entry) {
    std::string line = "\t" + entry.key + " (" + ld_cache_type_name(entry.flags);
    const std::uint32_t arch = entry.flags & 0xff00;
    const std::string arch_name = ld_cache_arch_name(entry.flags);
    if (!arch_name.empty()) line += "," + arch_name;
    else if (arch != 0) line += "," + std::to_string(arch);
    if (!entry.hwcaps_subdir.empty()) {
        line += ", hwcap: \"" + entry.hwcaps_subdir + "\"";
    } else if (entry.hwcap != 0) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "%#.16" PRIx64, entry.hwcap);
        line += std::string(", hwcap: ") + hex;
    }
    if (entry.osversion != 0) {
        static const char* const os_names[] = {"Linux", "Hurd", "Solaris", "FreeBSD", "kNetBSD", "Syllable", "Unknown OS"};
        const std::uint32_t os = entry.osversion >> 24;
        line += std::string(", OS ABI: ") + os_names[os > 6 ? 6 : os] + " " + std::to_string((entry.osversion >> 16) & 0xff) + "." +
                std::to_string((entry.osversion >> 8) & 0xff) + "." + std::to_string(entry.osversion & 0xff);
    }
    line += ") => " + entry.value;
    return line;
}

}  // namespace cudoctor::formats
