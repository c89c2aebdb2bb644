#pragma once
// The `arch` report: for every scanned file its targets and a verdict per GPU; rendered as
// text, JSON or a Markdown table.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/version.hpp"
#include "gpucode/gpus.hpp"
#include "gpucode/inputs.hpp"
#include "gpucode/packages.hpp"
#include "gpucode/scan.hpp"

namespace cudoctor::gpucode {

struct FileResult {
    FileScan scan;
    std::vector<TargetSummary> targets;
    std::vector<Verdict> verdicts;  ///< one per ArchReport::gpus, in order
};

/// A Python package named as an argument, judged as a whole.
struct PackageResult {
    std::string name;  ///< "torch"
    std::string site;  ///< the site-packages folder
    std::uint64_t elf_files = 0;
    std::uint64_t with_gpu_code = 0;     ///< of those, files that carry GPU code
    std::optional<BuildEvidence> build;  ///< what its build metadata says about CUDA
    /// No GPU code in any of its files, and its build metadata says it was built without CUDA:
    /// it can use no NVIDIA GPU at all. (No GPU code alone proves nothing: see packages.hpp.)
    bool without_cuda() const { return with_gpu_code == 0 && build && !build->with_cuda; }
};

struct ArchReport {
    std::vector<TargetGpu> gpus;
    std::optional<Version> driver_max_cuda;  ///< the highest CUDA the driver runs, when known
    ScanDepth depth = ScanDepth::full;
    bool fast = false;                          ///< --fast was given (else a registered-only depth was chosen because every GPU ran that)
    std::vector<FileResult> files;              ///< files with GPU code (or with a corrupt fatbin section)
    std::vector<std::string> without_gpu_code;  ///< ELF files that carry none
    std::vector<std::pair<std::string, Error>> errors;  ///< arguments or files that could not be scanned
    std::uint64_t skipped_not_elf = 0;                  ///< walked files that are no ELF (scripts, data)
    std::vector<PackageResult> packages;                ///< the arguments that were Python packages
    std::string note;                                   ///< e.g. "no NVIDIA GPU found: give --gpu"

    /// True when some file with GPU code cannot run on some GPU, runs only a small part of its
    /// modules on it (Verdict::partial), or needs a newer driver for JIT.
    bool any_cannot_run() const;
    /// any_cannot_run(), or a GPU was asked about and a package named was built without CUDA.
    bool any_problem() const;
};

/// Scans every file in `files` (named ones that are no ELF become errors; walked ones are
/// counted as skipped) at report.depth and gives each a verdict for each GPU. A file with no
/// registered fatbin is searched whole before it is called one without GPU code, unless
/// report.fast (--fast) forbids it.
void scan_into(const host::Host& host, const std::vector<Candidate>& files, ArchReport& report);

/// Judges each package of `expansion` as a whole (after scan_into() over its files): how many
/// of its ELF files carry GPU code, and what its build metadata says (package_build_evidence).
void judge_packages(const host::Host& host, const Expansion& expansion, ArchReport& report);

void render_text(const ArchReport& report, std::ostream& out);
/// The verdict over every file in one line (-q): "✓ 3 files with GPU code, 2 without: all run on
/// GeForce RTX 4090 (8.9)", "✗ …: 1 not runnable (in full) on …: /path/libfoo.so", "no GPU code
/// in 4 ELF files"; "" when nothing could be read (the errors say why).
std::string verdict_line(const ArchReport& report);
void render_markdown(const ArchReport& report, std::ostream& out);
nlohmann::json to_json(const ArchReport& report);

}  // namespace cudoctor::gpucode
