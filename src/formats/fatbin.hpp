#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// CUDA fat binaries (reference: formats.md section 1): containers (magic 0xBA55ED50) holding
/// entries of SASS (cubin ELF), PTX or LTO-IR, each with a header naming its architecture.
/// Only headers are read: payloads are never decompressed or even touched.
namespace cudoctor::formats {

inline constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;

enum class FatbinKind {
    ptx,     ///< kind 1: PTX text, JIT-compiled by the driver
    sass,    ///< kind 2: an ELF cubin (machine code for one architecture)
    lto_ir,  ///< kind 8: NVVM bitcode for link-time optimisation (needs a device link first)
    other,   ///< any other kind code
};

enum class FatbinCompression { none, lz4, zstd };

/// One entry's header.
struct FatbinEntry {
    FatbinKind kind = FatbinKind::other;
    std::uint16_t kind_code = 0;
    std::uint32_t arch = 0;           ///< SM number: 75, 90, 120
    bool arch_specific = false;       ///< "a" target (sm_90a): runs only on exactly that compute capability
    bool family_specific = false;     ///< "f" target (sm_100f): runs on that family
    bool debug = false;               ///< built with -G
    std::uint16_t version_major = 0;  ///< PTX: ISA major (9 for 9.0); SASS: 1
    std::uint16_t version_minor = 0;  ///< PTX: ISA minor; SASS: cubin ABI version (7 or 8)
    std::uint64_t flags = 0;
    FatbinCompression compression = FatbinCompression::none;
    std::uint32_t header_size = 0;
    std::uint64_t payload_size = 0;       ///< bytes stored after the header (padded)
    std::uint32_t compressed_size = 0;    ///< 0 when not compressed
    std::uint64_t uncompressed_size = 0;  ///< 0 when not compressed
    std::uint64_t offset = 0;             ///< of the entry header, from the start of the parsed bytes
};

/// "sm_90a", "compute_120f", "lto_75", "kind16_75": the target as nvcc's -gencode spells it.
std::string target_name(const FatbinEntry& entry);
/// "none", "LZ4", "zstd".
const char* to_string(FatbinCompression c);

struct FatbinContainer {
    std::uint64_t offset = 0;  ///< of the container header, from the start of the parsed bytes
    std::uint64_t size = 0;    ///< header + entries
    std::vector<FatbinEntry> entries;
};

/// What a walk found: the containers read, and the first corruption met (the walk stops there,
/// keeping what came before). Offsets are from the start of the walked bytes plus `base`.
struct FatbinWalk {
    std::vector<FatbinContainer> containers;
    std::optional<Error> error;
};

/// Parses the one container at the start of `bytes` (`bytes` may continue past it). Errors:
/// Errc::truncated when `bytes` is shorter than a container header; Errc::parse for a wrong
/// magic, a version other than 1, or a header size below 16; Errc::truncated "fatbin container
/// at offset …: size … runs past the end (… bytes)" when its size (which may be any 64-bit
/// value) does not fit; Errc::parse for an entry whose header size is below 64 or whose payload
/// size runs past the container. `base` is added to every offset reported.
Expected<FatbinContainer> parse_fatbin_container(std::string_view bytes, std::uint64_t base = 0);

/// Walks a section that holds containers back to back (.nv_fatbin, __nv_relfatbin): zero
/// padding between them is skipped in 8-byte steps; any other bytes where a container should
/// start, or a corrupt container, end the walk with `error` set. `base` (the section's file
/// offset) is added to every offset reported.
FatbinWalk walk_fatbin_section(std::string_view section, std::uint64_t base = 0);

/// Finds containers embedded in arbitrary data (cuFFT keeps them in .ldata, cuSPARSE in
/// .rodata, cuBLASLt in .cask_resource): the magic is looked for at every position whose
/// `base + position` is a multiple of 8, and a hit counts only when the container is whole,
/// has version 1 and header size 16, and its entries walk exactly to its end. After a hit the
/// search resumes behind the container, so container payloads are never read (only the bytes
/// between containers and the headers). Never fails: what does not validate is not a
/// container. Offsets reported include `base`.
std::vector<FatbinContainer> find_embedded_fatbins(std::string_view data, std::uint64_t base = 0);

}  // namespace cudoctor::formats
