// `cudoctor arch FILE|DIR|PACKAGE…`: which GPU architectures a binary carries (SASS, PTX, LTO-IR,
// read from its fatbin headers) and whether each GPU runs it — "no kernel image is available
// for execution on the device", predicted.
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "gpucode/gpus.hpp"
#include "gpucode/inputs.hpp"
#include "gpucode/report.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "report/style.hpp"

namespace cudoctor::commands {
namespace {

struct ArchOptions {
    std::vector<std::string> inputs;
    std::vector<std::string> gpus;
    MachineOptions machine;
    bool json = false;
    bool markdown = false;
    bool fast = false;
    bool full = false;
    bool quiet = false;  ///< main's -q/--quiet: the verdict over every file in one line
};

ExitStatus usage_error(const ArchOptions& options, std::ostream& out, std::ostream& err, const Error& e) {
    return report_error(e, options.json, "arch", out, err);
}

/// This machine's GPUs (and its driver's CUDA, for PTX JIT), read by the GPU and driver probes.
void add_machine_gpus(const Machine& m, const ArchOptions& options, gpucode::ArchReport& report) {
    const auto snap = take_snapshot(m.host, m.kb, options.machine, Probe::gpus_and_driver);
    report.gpus = gpucode::machine_gpus(snap.gpus);
    if (auto v = Version::parse(snap.driver.max_cuda)) report.driver_max_cuda = *v;
    if (report.gpus.empty())
        report.note = snap.gpus.empty() ? "No NVIDIA GPU found on this machine: give --gpu 8.9 or --gpu \"RTX 4090\" for a verdict."
                                        : "This machine's GPU has no known compute capability: give --gpu for a verdict.";
}

ExitStatus run_arch(const ArchOptions& options, std::ostream& out, std::ostream& err) {
    auto m = open_machine(options.machine);
    if (!m) return usage_error(options, out, err, m.error());
    const host::Host& host = m->host;
    const kb::Kb& kb = m->kb;

    gpucode::ArchReport report;
    // Headers of the registered fatbins first: a small fraction of reading the file. Only when
    // that says some GPU cannot run are the data sections searched too (cuFFT keeps its real
    // kernels in .ldata), unless --fast forbids it or --full asks for it from the start.
    report.depth = options.full ? gpucode::ScanDepth::full : gpucode::ScanDepth::registered;
    for (const auto& spec : options.gpus) {
        auto gpu = gpucode::resolve_gpu(kb, spec);
        if (!gpu) return usage_error(options, out, err, gpu.error());
        report.gpus.push_back(std::move(*gpu));
    }
    if (report.gpus.empty()) add_machine_gpus(*m, options, report);
    report.fast = options.fast;
    // With no GPU to ask about, the list of targets is the answer, and a list from the registered
    // fatbins alone can be far from whole (cuFFT 12's registered one holds sm_75 only, its
    // ~24,000 others sit in .ldata): search everything. On libcufft.so.12 (287 MB) that took
    // 0.9 s with the file cached and 2.3-2.8 s from disk, against 0.1-0.3 s for the headers
    // alone; on the whole 2.4 GB lib folder of CUDA 13.0, 2.1 s cached and 7.8 s from disk.
    if (report.gpus.empty() && !options.fast) report.depth = gpucode::ScanDepth::full;

    const auto expansion = expand_binary_arguments(*m, options.inputs);
    const gpucode::ArchReport before_scan = report;
    report.errors = expansion.errors;
    gpucode::scan_into(host, expansion.files, report);
    if (!options.fast && !options.full && report.any_cannot_run()) {
        report = before_scan;
        report.depth = gpucode::ScanDepth::full;
        report.errors = expansion.errors;
        gpucode::scan_into(host, expansion.files, report);
    }
    gpucode::judge_packages(host, expansion, report);

    // Errors first: nothing the report says comes before the line that says what went wrong.
    if (!options.json)
        for (const auto& [path, e] : report.errors) err << "cudoctor arch: " << e.message << "\n";
    if (options.json) out << report::json_text(gpucode::to_json(report)) << "\n";
    else if (options.markdown) gpucode::render_markdown(report, out);
    else if (options.quiet) {
        if (const auto line = gpucode::verdict_line(report); !line.empty()) out << line << "\n";
    } else gpucode::render_text(report, out);

    if (!report.errors.empty()) return ExitStatus::usage;
    return report.any_problem() ? ExitStatus::problems : ExitStatus::healthy;
}

}  // namespace

Command add_arch_command(CLI::App& app) {
    auto options = std::make_shared<ArchOptions>();
    auto* cmd =
        app.add_subcommand("arch",
                           "which GPU architectures a binary, library, folder or Python package carries, and whether each GPU runs it");
    cmd->add_option("inputs", options->inputs, "ELF files, folders (walked) or Python package names (torch)")->required();
    cmd->add_option("--gpu", options->gpus, "judge for this GPU instead of this machine's: 8.9, sm_120, \"RTX 4090\" (repeatable)")
        ->allow_extra_args(false);  // one value per --gpu: the files follow
    cmd->add_flag("--fast", options->fast,
                  "read only the fatbins registered at load (.nv_fatbin, __nv_relfatbin), never those embedded in data sections");
    cmd->add_flag("--full", options->full,
                  "always search data sections for embedded fatbins too (by default only when no GPU is known or the registered ones do "
                  "not serve every GPU)")
        ->excludes("--fast");
    cmd->add_flag("--json", options->json, "print JSON");
    cmd->add_flag("--markdown", options->markdown, "print a Markdown table");
    add_machine_options(cmd, options->machine);
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                return run_arch(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
