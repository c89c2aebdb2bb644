#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// ELF64 little-endian headers: the file header, the section table with names, and the program
/// headers. The input is the whole file as a view (usually memory-mapped): only the header
/// ranges are read, never the sections themselves.
namespace cudoctor::formats {

inline constexpr std::uint32_t kElfSectionNull = 0;     ///< SHT_NULL
inline constexpr std::uint32_t kElfSectionNobits = 8;   ///< SHT_NOBITS (.bss: no bytes in the file)
inline constexpr std::uint32_t kElfSectionDynamic = 6;  ///< SHT_DYNAMIC (.dynamic)
inline constexpr std::uint64_t kElfFlagAlloc = 0x2;     ///< SHF_ALLOC
inline constexpr std::uint64_t kElfFlagExec = 0x4;      ///< SHF_EXECINSTR
inline constexpr std::uint32_t kElfSegmentLoad = 1;     ///< PT_LOAD
inline constexpr std::uint32_t kElfSegmentInterp = 3;   ///< PT_INTERP
inline constexpr std::uint32_t kElfSegmentExec = 0x1;   ///< PF_X

struct ElfSection {
    std::string name;  ///< ".nv_fatbin"; "" when unnamed
    std::uint32_t type = 0;
    std::uint64_t flags = 0;
    std::uint64_t addr = 0;
    std::uint64_t offset = 0;  ///< file offset of the bytes
    std::uint64_t size = 0;
    std::uint32_t link = 0;  ///< sh_link: for .dynamic, the index of its string table
    /// True when the section has bytes in the file (not SHT_NULL or SHT_NOBITS).
    bool in_file() const { return type != kElfSectionNull && type != kElfSectionNobits; }
};

struct ElfSegment {
    std::uint32_t type = 0;
    std::uint32_t flags = 0;
    std::uint64_t offset = 0;
    std::uint64_t file_size = 0;
};

struct ElfFile {
    std::uint16_t type = 0;     ///< e_type: 1 relocatable, 2 executable, 3 shared object, 4 core
    std::uint16_t machine = 0;  ///< e_machine: 62 x86-64, 183 AArch64, 190 CUDA
    std::vector<ElfSection> sections;
    std::vector<ElfSegment> segments;
};

/// True when `head` starts with the ELF magic "\x7fELF" (of any class or byte order).
bool is_elf(std::string_view head);

/// Reads the headers of an ELF64 little-endian file. `bytes` is the whole file; only the file
/// header, the program header table, the section header table and the section-name table are
/// read. Errors, each a one-line message:
/// - Errc::parse "not an ELF file" when the magic is missing (a script, a text file, empty);
/// - Errc::unsupported for a 32-bit or big-endian ELF, or an unknown ELF version;
/// - Errc::truncated "truncated ELF: …" when the file ends inside the file header, or the
///   section or program header table (or the name table) points past the end of the file;
/// - Errc::parse "corrupt ELF: …" for an impossible entry size or a section-name index out of
///   range. A section whose bytes lie past the end is kept: section_bytes() reports it.
/// A file without section headers (e_shoff 0) parses with an empty section list.
Expected<ElfFile> parse_elf(std::string_view bytes);

/// The first section called `name`, or nullptr.
const ElfSection* find_section(const ElfFile& elf, std::string_view name);

/// The bytes of a section within the whole-file view `file`: empty for SHT_NOBITS / SHT_NULL,
/// Errc::truncated "section <name> (offset …, … bytes) runs past the end of the file (… bytes)"
/// when it does not lie inside the file.
Expected<std::string_view> section_bytes(std::string_view file, const ElfSection& section);

/// The DT_NEEDED entries of the file's dynamic section, in order ("libcublas.so.11"): the
/// libraries the loader must find before this one runs. Read from the section headers (the
/// SHT_DYNAMIC section and the string table its sh_link names), so a file is never loaded.
/// Empty when the file has no dynamic section (a static executable, an object file).
/// Errc::truncated when the dynamic section or its string table lies past the end of the file;
/// Errc::parse "corrupt ELF: …" for a string-table link or a name offset out of range.
Expected<std::vector<std::string>> needed_libraries(std::string_view file, const ElfFile& elf);

/// Library names "<stem>.so.<major>" ("libcublasLt.so.13") for each stem in `stems` found as
/// text anywhere in `bytes` (a library's .rodata, where a library that dlopens its helpers keeps
/// their names), distinct, in order of first appearance. A name must not continue with a letter,
/// digit, '_' or '.' before the major, and stops at the first non-digit after it.
std::vector<std::string> library_names_in(std::string_view bytes, const std::vector<std::string_view>& stems);

/// A name library_names_read_part() found, at `offset` in the range.
struct FoundLibraryName {
    std::uint64_t offset = 0;
    std::string name;
};
/// library_names_in() of the names whose ".so." begins in [from, to) of a range of `size`
/// bytes, read piece by piece: `read(offset, length, to)` copies bytes [offset, offset + length)
/// into `to` (pread(2) of a megabyte .rodata into one small buffer, instead of mapping and
/// faulting it in page by page). Each distinct name comes with its first offset there. Each
/// piece is read with the bytes around it, so a name across a cut is seen whole and once: for
/// any `piece` size, and for parts found by separate calls (on separate threads: `read` must
/// allow it), merge_library_names() of the parts' findings gives library_names_in() of the
/// whole range. nullopt as soon as a read fails.
std::optional<std::vector<FoundLibraryName>> library_names_read_part(std::uint64_t size, std::uint64_t from, std::uint64_t to,
                                                                     std::size_t piece,
                                                                     const std::function<bool(std::uint64_t, std::uint64_t, char*)>& read,
                                                                     const std::vector<std::string_view>& stems);
/// The distinct names of parts' findings, in order of first appearance in the range.
std::vector<std::string> merge_library_names(std::vector<FoundLibraryName> found);

/// What the file is, in words: "relocatable object", "executable" (also a position-independent
/// one: ET_DYN with a PT_INTERP program interpreter), "shared object", "core file", or
/// "ELF type N".
std::string elf_kind(const ElfFile& elf);

}  // namespace cudoctor::formats
