#pragma once
// Reading the GPU code a binary carries: the fatbin containers of an ELF file, headers only.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "formats/fatbin.hpp"
#include "gpucode/compatibility.hpp"
#include "gpucode/prefetch.hpp"
#include "host/host.hpp"

namespace cudoctor::gpucode {

/// How far a scan looks.
enum class ScanDepth {
    /// The sections the CUDA runtime registers at load (.nv_fatbin, __nv_relfatbin): container
    /// and entry headers only, a few pages per module.
    registered,
    /// Also containers embedded in data sections (cuFFT's .ldata, cuSPARSE's .rodata, cuBLASLt's
    /// .cask_resource), loaded through the module API. Reads the bytes between containers.
    full,
};

/// A fatbin container: what the runtime loads as one module.
struct Module {
    std::string section;    ///< ".nv_fatbin", ".ldata", …
    bool embedded = false;  ///< found by the data-section search (not registered at load)
    std::vector<Image> images;
    std::vector<formats::FatbinEntry> entries;  ///< the entry headers behind `images` (offsets in the file)
};

/// A section that held GPU code, or that could not be read.
struct SectionScan {
    std::string name;
    bool embedded = false;
    std::uint64_t modules = 0;
    std::uint64_t images = 0;
    std::string error;  ///< corruption met (the walk stopped there); "" when clean
};

struct FileScan {
    std::string path;
    std::uint64_t size = 0;
    std::string kind;  ///< "shared object", "executable", "relocatable object"
    ScanDepth depth = ScanDepth::registered;
    std::vector<SectionScan> sections;
    std::vector<Module> modules;
    std::vector<std::string> problems;  ///< one line each: a corrupt section, what was not scanned
    bool has_gpu_code() const { return !modules.empty(); }
    /// The images of each module, the shape verdict_for() takes.
    std::vector<std::vector<Image>> module_images() const;
};

/// One target of a file, over all its modules.
struct TargetSummary {
    Image target;      ///< kind, arch, variant (ISA and compression cleared)
    std::string name;  ///< "sm_90a"
    std::uint64_t images = 0;
    std::uint64_t compressed = 0;  ///< how many of those images are compressed
    std::string compression;       ///< "zstd", "LZ4", "zstd+LZ4" or ""
    std::string ptx_isa;           ///< PTX: the highest ISA version seen ("9.0")
    bool registered = false;       ///< found in a registered section
    bool embedded = false;         ///< found in a data section
};

/// The targets of a scan, SASS first, then PTX, then LTO-IR and others; each by architecture.
std::vector<TargetSummary> summarize(const FileScan& scan);

/// Scans the bytes of a whole ELF file (pure: no I/O; `bytes` is usually a mapped file and
/// only the headers are touched). Errors are parse_elf()'s: not an ELF, 32-bit, truncated
/// headers. Corrupt or truncated fatbin sections are not errors: the scan keeps what it read
/// and says what stopped it in `problems` and the section's `error`.
/// `will_need`, when given, hears which ranges are read soon (see prefetch.hpp): the mapped-file
/// caller turns it into read-ahead; it changes no result.
Expected<FileScan> scan_elf_bytes(std::string_view bytes, ScanDepth depth, const WillNeed& will_need = {});

/// Maps a machine file through the Host and scans it (scan_elf_bytes), filling path and size.
/// Errors: MappedFile::open()'s, then scan_elf_bytes()'s with the path in front.
Expected<FileScan> scan_file(const host::Host& host, std::string_view path, ScanDepth depth);

}  // namespace cudoctor::gpucode
