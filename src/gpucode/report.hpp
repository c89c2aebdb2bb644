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
#include "gpucode/scan.hpp"

namespace cudoctor::gpucode {

struct FileResult {
    FileScan scan;
    std::vector<TargetSummary> targets;
    std::vector<Verdict> verdicts;  ///< one per ArchReport::gpus, in order
};

struct ArchReport {
    std::vector<TargetGpu> gpus;
    std::optional<Version> driver_max_cuda;  ///< the highest CUDA the driver runs, when known
    ScanDepth depth = ScanDepth::full;
    std::vector<FileResult> files;                      ///< files with GPU code (or with a corrupt fatbin section)
    std::vector<std::string> without_gpu_code;          ///< ELF files that carry none
    std::vector<std::pair<std::string, Error>> errors;  ///< arguments or files that could not be scanned
    std::uint64_t skipped_not_elf = 0;                  ///< walked files that are no ELF (scripts, data)
    std::string note;                                   ///< e.g. "no NVIDIA GPU found: give --gpu"

    /// True when some file with GPU code cannot run on some GPU (or needs a newer driver for JIT).
    bool any_cannot_run() const;
};

/// Scans every file in `files` (named ones that are no ELF become errors; walked ones are
/// counted as skipped) and gives each a verdict for each GPU.
void scan_into(const host::Host& host, const std::vector<Candidate>& files, ArchReport& report);

void render_text(const ArchReport& report, std::ostream& out);
void render_markdown(const ArchReport& report, std::ostream& out);
nlohmann::json to_json(const ArchReport& report);

}  // namespace cudoctor::gpucode
