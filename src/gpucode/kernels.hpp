#pragma once
// `cudoctor kernels`: the CUDA kernels inside binaries, read from the cubins and PTX of their
// fatbins (compressed entries decompressed) and, where the host side keeps its symbols, from
// nvcc's launch stubs. Each kernel with the targets that carry it; totals per file.
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "gpucode/inputs.hpp"
#include "gpucode/scan.hpp"
#include "host/host.hpp"

namespace cudoctor::gpucode {

struct Kernel {
    std::string name;               ///< the symbol: "_Z10reduce_sumPKfPfi", "add_one" (extern "C")
    std::string demangled;          ///< "reduce_sum(float const*, float*, int)"; `name` when not mangled
    std::vector<std::string> sass;  ///< "sm_75", "sm_90a": the cubins that define it, by architecture
    std::vector<std::string> ptx;   ///< "compute_86": the PTX that has it as an .entry
    /// "lto_75": LTO-IR entries cannot be read (their NVVM IR is not plain bitcode), so a kernel
    /// gets these only when the host side names it (a launch stub) and the file has LTO-IR.
    std::vector<std::string> lto;
    std::uint64_t images = 0;  ///< cubin and PTX images that define it (one kernel may sit in several modules)
    bool host_stub = false;    ///< the host side has a launch stub for it
};

struct FileKernels {
    std::string path;
    std::uint64_t size = 0;
    std::string kind;                ///< "shared object", "executable", "relocatable object"
    std::vector<Kernel> kernels;     ///< sorted by demangled name
    std::uint64_t modules = 0;       ///< fatbin containers
    std::uint64_t sass_images = 0;   ///< cubins read
    std::uint64_t ptx_images = 0;    ///< PTX texts read
    std::uint64_t lto_images = 0;    ///< LTO-IR entries (not readable: see Kernel::lto)
    std::uint64_t other_images = 0;  ///< entries of another kind
    std::uint64_t compressed = 0;    ///< of the images read, how many were decompressed
    std::uint64_t decompressed_bytes = 0;
    std::uint64_t kernel_images = 0;    ///< (kernel, image) pairs: the kernels as the fatbins count them
    bool host_symbols = false;          ///< the host side has a symbol table (not stripped)
    std::uint64_t host_stubs = 0;       ///< launch stubs found there
    std::vector<std::string> problems;  ///< one line each: a corrupt fatbin section, cubin, PTX or compressed entry
};

struct KernelsReport {
    ScanDepth depth = ScanDepth::full;
    std::vector<FileKernels> files;             ///< files with GPU code (or a problem reading it)
    std::vector<std::string> without_gpu_code;  ///< ELF files that carry none
    std::vector<std::pair<std::string, Error>> errors;
    std::uint64_t skipped_not_elf = 0;
    bool any_problem() const;
};

/// The kernels of a whole ELF file's bytes (pure: `bytes` is usually a mapped file; an
/// uncompressed cubin is read only in its headers and symbol table). Errors are scan_elf_bytes()'s
/// (not an ELF, truncated headers); a corrupt fatbin section, cubin, PTX text or compressed
/// entry is no error: the file keeps what was read and the `problems` say what was not.
Expected<FileKernels> kernels_of_elf(std::string_view bytes, ScanDepth depth);

/// C++ names for people: abi::__cxa_demangle of an Itanium-mangled name ("_Z…"; with -rdc a
/// kernel of internal linkage is "__nv_static_<module>__Z…": its "_Z…" part), `name` itself
/// when it is not mangled, does not demangle, or is longer than 64 KiB.
std::string demangle(const std::string& name);

/// Reads each file of `files` at `depth` into `report` (named non-ELF files become errors; walked
/// ones are counted as skipped).
void collect_kernels(const host::Host& host, const std::vector<Candidate>& files, ScanDepth depth, KernelsReport& report);

/// With `totals_only`, one line of totals per file instead of every kernel.
void render_kernels_text(const KernelsReport& report, bool totals_only, std::ostream& out);
void render_kernels_markdown(const KernelsReport& report, bool totals_only, std::ostream& out);
nlohmann::json kernels_to_json(const KernelsReport& report);
/// The verdict in one line (-q): "18 kernels in 3 files with GPU code, 1 without"; with problems
/// "…; problems in 1 file: /path/libfoo.so"; "no GPU code in 4 ELF files"; "" when nothing could
/// be read (the errors say why).
std::string kernels_verdict_line(const KernelsReport& report);

}  // namespace cudoctor::gpucode
