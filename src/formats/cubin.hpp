#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// The kernels a piece of GPU code defines: the entry functions of a cubin (the ELF inside a
/// fatbin's SASS entry) and the `.entry` directives of PTX text. Pure: bytes in, names out.
namespace cudoctor::formats {

inline constexpr std::uint16_t kElfMachineCuda = 190;  ///< EM_CUDA
inline constexpr std::uint8_t kCudaEntryFlag = 0x10;   ///< STO_CUDA_ENTRY in a symbol's st_other

/// The entry kernels of a cubin, as their (usually mangled) symbol names in symbol-table order,
/// each once: the defined STT_FUNC symbols whose st_other carries STO_CUDA_ENTRY (0x10). Device
/// functions (-rdc keeps them as STT_FUNC too, with their own .nv.info.<name>) are not kernels.
/// Only the ELF headers, the symbol table and its string table are read, never the code.
/// Errors, one line each: parse_elf()'s ("not an ELF file", "truncated ELF: …", "corrupt ELF:
/// …"); Errc::parse "not a cubin: ELF machine N (expected 190, CUDA)"; Errc::parse "corrupt
/// cubin: …" for a symbol table whose entry size is not 24, whose string-table link is out of
/// range, or a name offset outside its string table or without a terminating NUL;
/// Errc::truncated when the symbol or string table runs past the end. A cubin without a symbol
/// table has no kernels (an empty list, no error).
Expected<std::vector<std::string>> cubin_kernels(std::string_view cubin);

/// The names of PTX text's `.entry` directives (`.visible .entry name(`), in order, each once;
/// comments (`//`, `/* */`) and quoted strings are skipped. A name must be a PTX identifier
/// ([A-Za-z_$%][A-Za-z0-9_$]*). Errors: Errc::parse "not PTX text: …" when the text holds a NUL
/// byte before its end (padding NULs at the end are allowed) or has no `.version` directive;
/// Errc::parse "corrupt PTX: .entry at offset N is not followed by a name".
Expected<std::vector<std::string>> ptx_entries(std::string_view ptx);

/// The kernels a host ELF file (an extension .so, an executable, an object) registers, read from
/// the launch stubs nvcc writes for each (`__device_stub__<kernel>`) in its symbol table
/// (.symtab, kept unless the file is stripped): the device names, in symbol order, each once.
/// A kernel declared extern "C" has a C++-mangled stub ("_Z7add_onePfi") but a plain device
/// name; it is given plain ("add_one") when that name, and not the mangled one, is a string of
/// the file's .rodata sections (where the registration keeps the device names). An ELF without .symtab
/// has no stubs (empty). Errors: parse_elf()'s, and the "corrupt cubin: …"-style symbol-table
/// errors of cubin_kernels() worded "corrupt ELF: …".
Expected<std::vector<std::string>> host_stub_kernels(std::string_view file);

}  // namespace cudoctor::formats
