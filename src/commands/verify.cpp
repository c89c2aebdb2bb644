// `cudoctor verify`: probe the machine (as check does), apply the rules, then run the
// verification levels and render the report. --snapshot renders a saved `verify --json` report.
#include <memory>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "common/duration.hpp"
#include "host/files.hpp"
#include "rules/rules.hpp"
#include "verify/verify.hpp"

namespace cudoctor::commands {
namespace {

constexpr std::size_t kMaxReportBytes = 64u << 20;

struct VerifyOptions {
    MachineOptions machine;  ///< --root, --kb, --python
    std::optional<std::string> report_file;
    verify::Options run;
    std::string timeout = "20s";
    bool json = false;
    bool markdown = false;
    bool quiet = false;  ///< main's -q/--quiet: the verdict line only
    bool color = false;  ///< main's colour decision for standard output
};

ExitStatus usage_error(const VerifyOptions& options, std::ostream& out, std::ostream& err, const Error& e) {
    return report_error(e, options.json, "verify", out, err);
}

Expected<verify::Report> load_report(const std::string& file) {
    // As check --snapshot reads: a pipe too, and a folder is the same I/O error.
    auto data = host::read_capped_or_pipe(file, kMaxReportBytes);
    if (!data) return Unexpected<Error>(data.error());
    auto report = verify::from_json_text(*data);
    if (!report) return fail(report.error().code, file + ": " + report.error().message);
    // verify always runs level 1: a report without levels would render as a PASS of nothing.
    if (report->levels.empty()) return fail(Errc::parse, file + ": not a cudoctor verify report (no level in \"levels\")");
    return report;
}

ExitStatus run_verify_command(VerifyOptions& options, std::ostream& out, std::ostream& err) {
    verify::Report report;
    if (options.report_file) {
        auto loaded = load_report(*options.report_file);
        if (!loaded) return usage_error(options, out, err, loaded.error());
        report = std::move(*loaded);
    } else {
        const auto timeout = parse_duration(options.timeout);
        if (!timeout || *timeout <= std::chrono::milliseconds(0) || *timeout > std::chrono::hours(1))
            return usage_error(options, out, err,
                               Error{Errc::usage, "--timeout '" + options.timeout + "': not a duration from 1ms to 1h (20, 20s, 1.5m)"});
        options.run.call_timeout = *timeout;
        auto m = open_machine(options.machine, {.probe = Probe::all});
        if (!m) return usage_error(options, out, err, m.error());
        m->snap.findings = rules::evaluate(m->snap, m->kb);
        report = verify::run_verify(m->host, m->kb, m->snap, options.run);
    }
    if (options.json) out << verify::to_json_text(report) << "\n";
    else if (options.markdown) verify::render_markdown(report, out);
    else if (options.quiet) out << verify::verdict_line(report) << "\n";
    else verify::render_text(report, options.color, out);
    return verify::all_passed(report) ? ExitStatus::healthy : ExitStatus::problems;
}

}  // namespace

Command add_verify_command(CLI::App& app) {
    auto options = std::make_shared<VerifyOptions>();
    auto* cmd = app.add_subcommand("verify",
                                   "the verification chain: driver and GPU visible → toolkit compiles and runs a kernel → "
                                   "cuDNN and frameworks really load and see the GPU");
    cmd->add_option("--level", options->run.level, "stop after this level (1: driver and GPU, 2: toolkit, 3: cuDNN and frameworks)")
        ->check(CLI::Range(1, 3));
    cmd->add_option("--compiler", options->run.compiler, "level 2 compiler: auto (nvcc, else NVRTC), nvcc or nvrtc")
        ->check(CLI::IsMember({"auto", "nvcc", "nvrtc"}));
    cmd->add_option("--timeout", options->timeout,
                    "how long each call into a driver library may take before it counts as a hang: 20, 20s, 1.5m (default 20s)");
    const auto shared = add_machine_options(cmd, options->machine, {.python = true});
    cmd->add_option("--snapshot", options->report_file, "render a saved report (from verify --json) instead of verifying")->excludes(shared.root);
    cmd->add_flag("--json", options->json, "print the report as versioned JSON");
    cmd->add_flag("--markdown", options->markdown, "print Markdown, ready to paste into a GitHub issue");
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                options->color = o.color;
                return run_verify_command(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
