// `cudoctor fleet DIR|FILE…`: many machines' snapshots (from `check --json`, gathered by Slurm,
// Ansible, pdsh or a DaemonSet) side by side — the majority configuration per layer, the nodes
// that drifted from it, the findings by rule, and the stale or unreadable snapshots.
#include <memory>

#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "commands/output_format.hpp"
#include "fleet/analysis.hpp"
#include "fleet/duration.hpp"
#include "fleet/prometheus.hpp"
#include "fleet/reader.hpp"
#include "fleet/render.hpp"
#include "kb/kb.hpp"
#include "report/style.hpp"

namespace cudoctor::commands {
namespace {

struct FleetOptions {
    std::vector<std::string> inputs;
    std::optional<std::string> baseline;
    MachineOptions machine;  ///< --kb only: fleet reads snapshots, never a machine
    std::string stale_after = "7d";
    std::string fail_on = "error";
    unsigned jobs = 0;
    bool json = false;
    bool markdown = false;
    bool prometheus = false;  ///< --format prometheus
    std::string format = "text";
    bool quiet = false;  ///< main's -q/--quiet: the summary line only
};

ExitStatus usage_error(const FleetOptions& options, std::ostream& out, std::ostream& err, const Error& e) {
    return report_error(e, options.json, "fleet", out, err);
}

ExitStatus run_fleet(const FleetOptions& options, std::ostream& out, std::ostream& err) {
    auto kb = kb::Kb::load(options.machine.kb_dir);
    if (!kb) return usage_error(options, out, err, kb.error());
    const auto stale_after = fleet::parse_duration(options.stale_after);
    if (!stale_after)
        return usage_error(options, out, err,
                           {Errc::usage, "--stale-after: not a duration like 7d, 36h, 3d12h or 0: " + options.stale_after});

    fleet::AnalyseOptions analyse_options;
    analyse_options.stale_after_seconds = *stale_after;
    if (options.baseline) {
        auto snap = fleet::read_snapshot_file(*options.baseline);
        if (!snap)
            return usage_error(options, out, err, {snap.error().code, "--baseline " + *options.baseline + ": " + snap.error().message});
        analyse_options.baseline = fleet::summarize(*snap, *kb, *options.baseline);
    }
    auto files = fleet::snapshot_files(options.inputs);
    if (!files) return usage_error(options, out, err, files.error());

    const auto report = fleet::analyse(fleet::read_fleet(*files, *kb, options.jobs, options.prometheus), analyse_options);
    if (options.json) {
        fleet::write_json(report, out);  // as report::json_text(fleet::to_json(report)), without the tree
        out << "\n";
    } else if (options.markdown) fleet::render_markdown(report, {}, out);
    else if (options.prometheus) fleet::render_prometheus(report, out);
    else if (options.quiet) out << fleet::verdict_line(report) << "\n";
    else fleet::render_text(report, {}, out);
    return fleet::has_problems(report, *snapshot::severity_from(options.fail_on)) ? ExitStatus::problems : ExitStatus::healthy;
}

}  // namespace

Command add_fleet_command(CLI::App& app) {
    auto options = std::make_shared<FleetOptions>();
    auto* cmd = app.add_subcommand("fleet", "many machines' snapshots side by side: what differs, who is broken");
    cmd->add_option("inputs", options->inputs, "snapshot files (from check --json) or folders of them (*.json, recursively)")->required();
    cmd->add_option("--baseline", options->baseline, "compare every node with this known-good snapshot instead of the majority");
    cmd->add_option("--stale-after", options->stale_after,
                    "a snapshot this much older than the newest one is stale (7d, 36h, 3d12h; 0: never)")
        ->capture_default_str();
    add_machine_options(cmd, options->machine, {.root = false});
    cmd->add_option("-j,--jobs", options->jobs, "files read in parallel (default: one per core, at most 16)")->check(CLI::Range(0u, 256u));
    auto* json = cmd->add_flag("--json", options->json, "print the report as JSON (every node listed; same as --format json)");
    auto* markdown =
        cmd->add_flag("--markdown", options->markdown, "print Markdown, ready for an issue or a wiki page (same as --format markdown)");
    add_format_option(cmd, options->format, {"text", "json", "markdown", "prometheus"},
                      "text, json, markdown, or prometheus (every node's check metrics with a node label, and the fleet's drift)")
        ->excludes(json)
        ->excludes(markdown);
    cmd->add_option("--fail-on", options->fail_on,
                    "exit 1 on findings of this severity or worse (drift, stale and unreadable snapshots always do)")
        ->check(CLI::IsMember({"error", "warning"}))
        ->capture_default_str();
    return {cmd, [options](const Output& o) {
                apply_format(options->format, options->json, options->markdown, options->prometheus);
                options->quiet = o.quiet;
                return run_fleet(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
