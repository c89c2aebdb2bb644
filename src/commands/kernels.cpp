// `cudoctor kernels FILE|DIR|PACKAGE…`: the CUDA kernels inside binaries (an extension .so, a
// plugin, an executable, a library): each kernel's name, the targets that carry it (SASS per
// sm, PTX), read from the cubins and PTX of its fatbins and the host side's launch stubs.
#include <filesystem>
#include <memory>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "gpucode/inputs.hpp"
#include "gpucode/kernels.hpp"
#include "host/host.hpp"
#include "report/style.hpp"

namespace cudoctor::commands {
namespace {

struct KernelsOptions {
    std::vector<std::string> inputs;
    MachineOptions machine;
    bool json = false;
    bool markdown = false;
    bool fast = false;
    bool totals = false;
    bool quiet = false;  ///< main's -q/--quiet: the verdict in one line
};

ExitStatus run_kernels(const KernelsOptions& options, std::ostream& out, std::ostream& err) {
    auto m = open_machine(options.machine);
    if (!m) return report_error(m.error(), options.json, "kernels", out, err);
    const host::Host& host = m->host;

    const auto expansion = expand_binary_arguments(*m, options.inputs);

    gpucode::KernelsReport report;
    report.errors = expansion.errors;
    // A kernel inventory must be whole: data sections that embed fatbins (cuBLASLt's
    // .cask_resource, cuFFT's .ldata) are searched too, unless --fast.
    gpucode::collect_kernels(host, expansion.files, options.fast ? gpucode::ScanDepth::registered : gpucode::ScanDepth::full, report);

    if (!options.json)
        for (const auto& [path, e] : report.errors)
            err << "cudoctor kernels: " << report::outside_text(e.message, report::Medium::terminal) << "\n";
    if (options.json) out << report::json_text(gpucode::kernels_to_json(report)) << "\n";
    else if (options.markdown) gpucode::render_kernels_markdown(report, options.totals, out);
    else if (options.quiet) {
        if (const auto line = gpucode::kernels_verdict_line(report); !line.empty()) out << line << "\n";
    } else gpucode::render_kernels_text(report, options.totals, out);

    if (!report.errors.empty()) return ExitStatus::usage;
    return report.any_problem() ? ExitStatus::problems : ExitStatus::healthy;
}

}  // namespace

Command add_kernels_command(CLI::App& app) {
    auto options = std::make_shared<KernelsOptions>();
    auto* cmd = app.add_subcommand(
        "kernels",
        "the CUDA kernels inside binaries, folders or Python packages: each kernel's name and the SASS and PTX targets that carry it");
    cmd->add_option("inputs", options->inputs, "ELF files, folders (walked) or Python package names (torch)")->required();
    cmd->add_flag("--fast", options->fast,
                  "read only the fatbins registered at load (.nv_fatbin, __nv_relfatbin), not those embedded in data sections");
    cmd->add_flag("--totals", options->totals, "one line of totals per file instead of every kernel");
    cmd->add_flag("--json", options->json, "print JSON");
    cmd->add_flag("--markdown", options->markdown, "print Markdown tables")->excludes("--json");
    add_machine_options(cmd, options->machine);
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                return run_kernels(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
