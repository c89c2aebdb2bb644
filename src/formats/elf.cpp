#include "formats/elf.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "formats/byte_reader.hpp"

namespace cudoctor::formats {
namespace {

constexpr std::uint64_t kFileHeaderSize = 64;
constexpr std::uint64_t kSectionHeaderSize = 64;
constexpr std::uint64_t kProgramHeaderSize = 56;
constexpr std::uint16_t kSectionIndexExtended = 0xffff;  // SHN_XINDEX: the real index is in section 0
// A section name longer than this is corruption (real names are under 100 bytes).
constexpr std::uint64_t kMaxName = 4096;

Unexpected<Error> truncated(std::string_view what, std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
    return fail(Errc::truncated, "truncated ELF: " + std::string(what) + " (offset " + std::to_string(offset) + ", " +
                                     std::to_string(length) + " bytes) runs past the end of the file (" + std::to_string(size) + " bytes)");
}

/// Where a table of `count` entries of `entry_size` bytes at `offset` ends, or nullopt on overflow.
std::optional<std::uint64_t> table_length(std::uint64_t count, std::uint64_t entry_size) { return checked_mul(count, entry_size); }

/// The NUL-terminated name at `index` of the name table [table_offset, table_offset + table_size).
Expected<std::string> section_name(const ByteReader& in, std::uint64_t table_offset, std::uint64_t table_size, std::uint32_t index) {
    if (index >= table_size)
        return fail(Errc::parse, "corrupt ELF: section name index " + std::to_string(index) + " is outside the name table (" +
                                     std::to_string(table_size) + " bytes)");
    const std::uint64_t avail = table_size - index;
    const auto window = in.range(table_offset + index, avail < kMaxName ? avail : kMaxName);
    if (!window) return truncated("section name table", table_offset, table_size, in.size());
    const auto nul = window->find('\0');
    if (nul == std::string_view::npos)
        return fail(Errc::parse, "corrupt ELF: section name at index " + std::to_string(index) + " has no terminating NUL");
    return std::string(window->substr(0, nul));
}

}  // namespace

bool is_elf(std::string_view head) { return head.starts_with("\177ELF"); }

Expected<ElfFile> parse_elf(std::string_view bytes) {
    const ByteReader in(bytes);
    if (!is_elf(bytes)) return fail(Errc::parse, "not an ELF file");
    if (bytes.size() < 7) return truncated("file header", 0, kFileHeaderSize, in.size());
    if (bytes[4] == 1) return fail(Errc::unsupported, "32-bit ELF files are not supported (GPU code ships in 64-bit binaries)");
    if (bytes[4] != 2) return fail(Errc::parse, "corrupt ELF: unknown ELF class " + std::to_string(static_cast<std::uint8_t>(bytes[4])));
    if (bytes[5] == 2) return fail(Errc::unsupported, "big-endian ELF files are not supported");
    if (bytes[5] != 1) return fail(Errc::parse, "corrupt ELF: unknown byte order " + std::to_string(static_cast<std::uint8_t>(bytes[5])));
    if (bytes[6] != 1)
        return fail(Errc::unsupported, "ELF version " + std::to_string(static_cast<std::uint8_t>(bytes[6])) + " is not supported");
    if (!in.contains(0, kFileHeaderSize)) return truncated("file header", 0, kFileHeaderSize, in.size());

    ElfFile elf;
    elf.type = *in.u16(0x10);
    elf.machine = *in.u16(0x12);
    const std::uint64_t phoff = *in.u64(0x20);
    const std::uint64_t shoff = *in.u64(0x28);
    const std::uint16_t phentsize = *in.u16(0x36);
    const std::uint16_t phnum = *in.u16(0x38);
    const std::uint16_t shentsize = *in.u16(0x3a);
    std::uint64_t shnum = *in.u16(0x3c);
    std::uint32_t shstrndx = *in.u16(0x3e);

    if (phoff != 0 && phnum != 0) {
        if (phentsize < kProgramHeaderSize)
            return fail(Errc::parse, "corrupt ELF: program header entry size " + std::to_string(phentsize) + " (expected 56)");
        const auto length = table_length(phnum, phentsize);
        if (!length || !in.contains(phoff, *length)) return truncated("program header table", phoff, length.value_or(~0ull), in.size());
        for (std::uint64_t i = 0; i < phnum; ++i) {
            const std::uint64_t at = phoff + i * phentsize;
            elf.segments.push_back({*in.u32(at), *in.u32(at + 4), *in.u64(at + 8), *in.u64(at + 0x20)});
        }
    }

    if (shoff == 0) return elf;  // no section headers: a stripped-to-the-bone or odd binary
    if (shentsize != kSectionHeaderSize)
        return fail(Errc::parse, "corrupt ELF: section header entry size " + std::to_string(shentsize) + " (expected 64)");
    if (!in.contains(shoff, kSectionHeaderSize)) return truncated("section header table", shoff, kSectionHeaderSize, in.size());
    // More than 0xff00 sections: the count and the name-table index move into section 0.
    if (shnum == 0) shnum = *in.u64(shoff + 0x20);
    if (shstrndx == kSectionIndexExtended) shstrndx = *in.u32(shoff + 0x28);
    const auto table = table_length(shnum, kSectionHeaderSize);
    if (!table || !in.contains(shoff, *table))
        return truncated("section header table of " + std::to_string(shnum) + " entries", shoff, table.value_or(~0ull), in.size());
    if (shnum == 0) return elf;
    if (shstrndx >= shnum)
        return fail(Errc::parse, "corrupt ELF: section name table index " + std::to_string(shstrndx) + " is not below the section count " +
                                     std::to_string(shnum));

    const std::uint64_t names_at = shoff + shstrndx * kSectionHeaderSize;
    const std::uint64_t names_offset = *in.u64(names_at + 0x18);
    const std::uint64_t names_size = *in.u64(names_at + 0x20);
    const bool have_names = *in.u32(names_at + 4) != kElfSectionNobits && names_size > 0;
    if (have_names && !in.contains(names_offset, names_size)) return truncated("section name table", names_offset, names_size, in.size());

    elf.sections.reserve(static_cast<std::size_t>(shnum));
    for (std::uint64_t i = 0; i < shnum; ++i) {
        const std::uint64_t at = shoff + i * kSectionHeaderSize;
        ElfSection s;
        const std::uint32_t name_index = *in.u32(at);
        s.type = *in.u32(at + 4);
        s.flags = *in.u64(at + 8);
        s.addr = *in.u64(at + 0x10);
        s.offset = *in.u64(at + 0x18);
        s.size = *in.u64(at + 0x20);
        s.link = *in.u32(at + 0x28);
        if (i != 0 && have_names) {
            auto name = section_name(in, names_offset, names_size, name_index);
            if (!name) return Unexpected<Error>(name.error());
            s.name = std::move(*name);
        }
        elf.sections.push_back(std::move(s));
    }
    return elf;
}

const ElfSection* find_section(const ElfFile& elf, std::string_view name) {
    for (const auto& s : elf.sections)
        if (s.name == name) return &s;
    return nullptr;
}

Expected<std::string_view> section_bytes(std::string_view file, const ElfSection& section) {
    if (!section.in_file()) return std::string_view();
    const ByteReader in(file);
    if (auto r = in.range(section.offset, section.size)) return *r;
    return fail(Errc::truncated, "section " + (section.name.empty() ? std::string("(unnamed)") : section.name) + " (offset " +
                                     std::to_string(section.offset) + ", " + std::to_string(section.size) +
                                     " bytes) runs past the end of the file (" + std::to_string(file.size()) + " bytes)");
}

Expected<std::vector<std::string>> needed_libraries(std::string_view file, const ElfFile& elf) {
    constexpr std::uint64_t kDynamicEntrySize = 16;
    constexpr std::uint64_t kTagNull = 0;
    constexpr std::uint64_t kTagNeeded = 1;
    std::vector<std::string> out;
    const ElfSection* dynamic = nullptr;
    for (const auto& s : elf.sections)
        if (s.type == kElfSectionDynamic) dynamic = &s;
    if (!dynamic) return out;
    if (dynamic->link >= elf.sections.size())
        return fail(Errc::parse, "corrupt ELF: the dynamic section links to section " + std::to_string(dynamic->link) + " of " +
                                     std::to_string(elf.sections.size()));
    auto entries = section_bytes(file, *dynamic);
    if (!entries) return Unexpected<Error>(entries.error());
    auto strings = section_bytes(file, elf.sections[dynamic->link]);
    if (!strings) return Unexpected<Error>(strings.error());
    const ByteReader table(*entries);
    for (std::uint64_t at = 0; at + kDynamicEntrySize <= entries->size(); at += kDynamicEntrySize) {
        const std::uint64_t tag = *table.u64(at);
        if (tag == kTagNull) break;
        if (tag != kTagNeeded) continue;
        const std::uint64_t offset = *table.u64(at + 8);
        if (offset >= strings->size())
            return fail(Errc::parse, "corrupt ELF: a DT_NEEDED name at offset " + std::to_string(offset) +
                                         " is outside the string table (" + std::to_string(strings->size()) + " bytes)");
        const auto rest = strings->substr(offset, kMaxName);
        const auto nul = rest.find('\0');
        if (nul == std::string_view::npos) return fail(Errc::parse, "corrupt ELF: a DT_NEEDED name has no terminating NUL");
        out.emplace_back(rest.substr(0, nul));
    }
    return out;
}

namespace {

/// The scan of library_names_in() over one piece of a range: the piece owns the '.' bytes of
/// its part [from, to) and is handed with the context around it (before() bytes ahead, after()
/// bytes past, clipped at the range's ends), so every name is looked at once and whole.
class LibraryNameScan {
  public:
    explicit LibraryNameScan(const std::vector<std::string_view>& stems) : m_stems(stems) {
        for (const auto stem : m_stems) m_before = std::max(m_before, stem.size() + 1);
    }
    /// Context ahead of a piece's part: the longest stem and the byte before it.
    std::size_t before() const { return m_before; }
    /// Context past a piece's part: ".so." and a major of up to four digits.
    static constexpr std::size_t after() { return 8; }

    /// `window` holds bytes [base, base + window.size()) of a range of `range_size` bytes.
    void scan(std::string_view window, std::uint64_t base, std::uint64_t from, std::uint64_t to, std::uint64_t range_size) {
        auto name_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-'; };
        auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
        constexpr std::string_view kSo = ".so.";
        // Bytes past a window that is not the range's end are unknown; a piece handed with its
        // context never needs them (a name ends within after() bytes of its '.').
        const bool window_ends_range = base + window.size() >= range_size;
        const char* const data = window.data();
        std::size_t pos = static_cast<std::size_t>(from - base);
        const auto stop = static_cast<std::size_t>(std::min<std::uint64_t>(to - base, window.size()));
        while (pos < stop) {
            const void* hit = std::memchr(data + pos, '.', stop - pos);
            if (!hit) break;
            const auto dot = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
            pos = dot + 1;
            if (window.substr(dot, kSo.size()) != kSo) continue;
            // Every "<stem>.so." has its ".so." here: one pass stopping at '.', not one per stem
            // stopping at each stem's first letter (cuDNN 9's .rodata is megabytes; 'l' is common).
            for (const auto stem : m_stems) {
                if (stem.size() > dot) continue;
                const std::size_t at = dot - stem.size();
                if (window.substr(at, stem.size()) != stem) continue;
                if (at > 0 && name_char(window[at - 1])) continue;  // "xlibcublas.so.1": another name
                const std::size_t digits = dot + kSo.size();
                std::size_t end = digits;
                while (end < window.size() && end - digits < 4 && digit(window[end])) ++end;
                if (end == digits) continue;                                                   // "libcublas.so." with no major
                if (end == window.size() && end - digits < 4 && !window_ends_range) continue;  // cut short
                std::string name(window.substr(at, end - at));
                bool seen = false;
                for (const auto& f : m_found) seen = seen || f.name == name;
                if (!seen) m_found.push_back({base + at, std::move(name)});
            }
        }
    }

    /// The names found, each distinct one at its first offset.
    std::vector<FoundLibraryName> found() && { return std::move(m_found); }

  private:
    std::vector<std::string_view> m_stems;
    std::size_t m_before = 1;
    std::vector<FoundLibraryName> m_found;
};

}  // namespace

std::vector<std::string> library_names_in(std::string_view bytes, const std::vector<std::string_view>& stems) {
    LibraryNameScan scan(stems);
    scan.scan(bytes, 0, 0, bytes.size(), bytes.size());
    return merge_library_names(std::move(scan).found());
}

std::optional<std::vector<FoundLibraryName>> library_names_read_part(std::uint64_t size, std::uint64_t from, std::uint64_t to,
                                                                     std::size_t piece,
                                                                     const std::function<bool(std::uint64_t, std::uint64_t, char*)>& read,
                                                                     const std::vector<std::string_view>& stems) {
    LibraryNameScan scan(stems);
    piece = std::max<std::size_t>(piece, 1);
    to = std::min(to, size);
    std::vector<char> buffer;
    for (std::uint64_t start = from; start < to; start += piece) {
        const std::uint64_t end = std::min<std::uint64_t>(to, start + piece);
        const std::uint64_t first = start >= scan.before() ? start - scan.before() : 0;
        const std::uint64_t last = std::min<std::uint64_t>(size, end + LibraryNameScan::after());
        buffer.resize(static_cast<std::size_t>(last - first));
        if (!read(first, last - first, buffer.data())) return std::nullopt;
        scan.scan({buffer.data(), buffer.size()}, first, start, end, size);
    }
    return std::move(scan).found();
}

std::vector<std::string> merge_library_names(std::vector<FoundLibraryName> found) {
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    std::vector<std::string> out;
    for (auto& f : found)
        if (std::find(out.begin(), out.end(), f.name) == out.end()) out.push_back(std::move(f.name));
    return out;
}

std::string elf_kind(const ElfFile& elf) {
    switch (elf.type) {
        case 1: return "relocatable object";
        case 2: return "executable";
        case 3:
            for (const auto& p : elf.segments)
                if (p.type == kElfSegmentInterp) return "executable";
            return "shared object";
        case 4: return "core file";
        default: return "ELF type " + std::to_string(elf.type);
    }
}

}  // namespace cudoctor::formats
