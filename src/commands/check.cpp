#include "commands/check.hpp"
#include "commands/errors.hpp"

#include <memory>
#include <optional>
#include <sstream>

#include "commands/command.hpp"
#include "commands/output_format.hpp"
#include "host/files.hpp"
#include "kb/kb.hpp"
#include "report/prometheus.hpp"
#include "report/report.hpp"
#include "rules/rules.hpp"
#include "snapshot/snapshot_json.hpp"
#include "snapshot/validate.hpp"

namespace cudoctor::commands {
namespace {

constexpr std::size_t kMaxSnapshotBytes = 256u << 20;

ExitStatus usage_error(const CheckOptions& options, std::ostream& out, std::ostream& err, const Error& e) {
    return report_error(e, options.json, "check", out, err);
}

// "%h" → the host name ("unknown-host" when the snapshot has none), "%%" → "%". Any other
// "%x" is left as written: srun expands its own %N/%j only in its own --output.
std::string expand_output(const std::string& pattern, const std::string& hostname) {
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '%' && i + 1 < pattern.size() && (pattern[i + 1] == 'h' || pattern[i + 1] == '%')) {
            out += pattern[i + 1] == 'h' ? (hostname.empty() ? "unknown-host" : hostname) : "%";
            ++i;
        } else {
            out += pattern[i];
        }
    }
    return out;
}

}  // namespace

Expected<snapshot::Snapshot> load_snapshot(const std::string& file) {
    // A pipe too: `check --snapshot <(ssh node cudoctor check --json)`.
    auto data = host::read_capped_or_pipe(file, kMaxSnapshotBytes);
    if (!data) return Unexpected<Error>(data.error());
    auto snap = snapshot::machine_from_json_text(*data);
    if (!snap) return fail(snap.error().code, file + ": " + snap.error().message);
    return snap;
}

ExitStatus run_check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
    std::optional<kb::Kb> kb;
    snapshot::Snapshot snap;
    if (options.snapshot_file) {
        auto loaded_kb = kb::Kb::load(options.machine.kb_dir);
        if (!loaded_kb) return usage_error(options, out, err, loaded_kb.error());
        kb = std::move(*loaded_kb);
        auto loaded = load_snapshot(*options.snapshot_file);
        if (!loaded) return usage_error(options, out, err, loaded.error());
        snap = std::move(*loaded);
    } else {
        auto machine = open_machine(options.machine, {.probe = Probe::all});
        if (!machine) return usage_error(options, out, err, machine.error());
        kb = std::move(machine->kb);
        snap = std::move(machine->snap);
    }
    // Findings are always recomputed: a snapshot from an older cudoctor gets today's rules.
    snap.findings = rules::evaluate(snap, *kb);

    std::ostringstream to_file;
    std::ostream& sink = options.output ? static_cast<std::ostream&>(to_file) : out;
    if (options.json) report::render_json(snap, sink);
    else if (options.markdown) report::render_markdown(snap, sink, options.snapshot_file);
    else if (options.prometheus) report::render_prometheus(snap, sink);
    else if (options.quiet) sink << report::verdict_line(snap) << "\n";
    else report::render_text(snap, {options.color && !options.output, options.verbose, options.snapshot_file}, sink);
    if (options.output) {
        if (auto written = host::write_atomically(expand_output(*options.output, snap.hostname), to_file.str()); !written)
            return usage_error(options, out, err, written.error());
    }

    // A machine that can run nothing on a GPU is a problem as the verdict says (verify fails there too).
    const bool cannot_run = !report::cannot_run_reason(snap).empty();
    return cannot_run || rules::worst_at_least(snap.findings, *snapshot::severity_from(options.fail_on)) ? ExitStatus::problems
                                                                                                         : ExitStatus::healthy;
}

Command add_check_command(CLI::App& app) {
    auto options = std::make_shared<CheckOptions>();
    auto* cmd = app.add_subcommand("check", "inventory the CUDA stack: GPU, driver, toolkits, cuDNN, frameworks, and what is wrong");
    const auto shared = add_machine_options(cmd, options->machine, {.python = true, .no_exec = true});
    cmd->add_option("--snapshot", options->snapshot_file, "render a saved snapshot (from check --json) instead of probing")
        ->excludes(shared.root);
    auto* json = cmd->add_flag("--json", options->json, "print the snapshot as versioned JSON (same as --format json)");
    cmd->add_option("-o,--output", options->output,
                    "write the report to FILE (atomically) instead of stdout; %h in FILE becomes the host name")
        ->type_name("FILE");
    auto* markdown =
        cmd->add_flag("--markdown", options->markdown, "print Markdown, ready to paste into a GitHub issue (same as --format markdown)");
    auto format = std::make_shared<std::string>("text");
    add_format_option(cmd, *format, {"text", "json", "markdown", "prometheus"},
                      "text, json, markdown, or prometheus (metrics for node_exporter's textfile collector: with --output FILE, "
                      "written atomically)")
        ->excludes(json)
        ->excludes(markdown);
    cmd->add_flag("-v,--verbose", options->verbose, "show the evidence of every fact");
    cmd->add_option("--fail-on", options->fail_on, "exit 1 on findings of this severity or worse")->check(CLI::IsMember({"error", "warning"}));
    return {cmd, [options, format](const Output& o) {
                apply_format(*format, options->json, options->markdown, options->prometheus);
                options->color = o.color;
                options->quiet = o.quiet;
                return run_check(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
