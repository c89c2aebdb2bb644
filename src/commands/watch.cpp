// `cudoctor watch [--pid PID | -- COMMAND…]`: long-run stability. GPU memory per process over
// hours with its trend (leak, flat, a caching allocator's sawtooth), utilisation, temperature,
// power, clocks, the driver's Xid reports and a launched command's CUDA errors; written to CSV
// as it goes, summarised at the end or later with `cudoctor watch report DIR`.
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "commands/output_format.hpp"
#include "host/files.hpp"
#include "report/style.hpp"
#include "watch/prometheus.hpp"
#include "watch/sample_log.hpp"
#include "watch/summary.hpp"
#include "watch/watcher.hpp"
#include "watch/xid_catalog.hpp"

namespace cudoctor::commands {
namespace {

constexpr std::string_view kStepOverride = "CUDOCTOR_OVERRIDE_WATCH_STEP";

struct WatchCliOptions {
    std::optional<unsigned> pid;
    std::vector<std::string> command;
    std::string interval = "10s";
    std::optional<std::string> duration;
    std::optional<std::string> out;
    std::optional<std::string> kernel_log;
    std::string timeout = "10s";
    MachineOptions machine;  ///< --root, --kb
    bool json = false;
    std::string report_format = "text";  ///< watch report --format
    std::string report_dir;
};

/// Reads DIR, prints the summary (with -q its verdict line only; metrics whole), writes DIR/memory.svg.
ExitStatus report(const std::string& dir, const std::optional<std::string>& kb_dir, bool json, std::optional<ExitStatus> ended,
                  const Output& o, bool prometheus = false) {
    auto xids = watch::XidCatalog::load(kb_dir);
    if (!xids) return report_error(xids.error(), json, "watch", o.out, o.err);
    auto record = watch::read_watch_dir(dir);
    if (!record) return report_error(record.error(), json, "watch", o.out, o.err);
    const auto summary = watch::summarise(*record, *xids, dir);
    // The plot is an extra beside the summary: a folder we cannot write to does not fail the report.
    (void)host::write_atomically(dir + "/memory.svg", watch::memory_svg(summary));
    if (json) o.out << report::json_text(watch::to_json(summary)) << "\n";
    else if (prometheus) watch::render_prometheus(summary, o.out);
    else if (o.quiet) o.out << report::outside_text(watch::verdict_line(summary), report::Medium::terminal) << "\n";
    else watch::render_text(summary, o.out);
    if (ended) return *ended;
    return summary.problems() ? ExitStatus::problems : ExitStatus::healthy;
}

std::string default_out_dir() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::localtime_r(&now, &tm);
    return fmt::format("cudoctor-watch-{:04d}{:02d}{:02d}-{:02d}{:02d}{:02d}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                       tm.tm_min, tm.tm_sec);
}

ExitStatus run_watch_command(const WatchCliOptions& o, const Output& out) {
    const auto usage_error = [&](const Error& e) { return report_error(e, o.json, "watch", out.out, out.err); };
    if (o.pid && !o.command.empty()) return usage_error({Errc::usage, "give --pid or a command after --, not both"});
    // Only the Xid table of the KB is needed here: the Host alone, not open_machine.
    auto host = open_host(o.machine);
    if (!host) return usage_error(host.error());
    if (auto xids = watch::XidCatalog::load(o.machine.kb_dir); !xids) return usage_error(xids.error());
    watch::WatchOptions w;
    w.pid = o.pid;
    w.command = o.command;
    auto interval = watch::parse_duration(o.interval);
    if (!interval) return usage_error(interval.error());
    w.interval = *interval;
    if (o.duration) {
        auto duration = watch::parse_duration(*o.duration);
        if (!duration) return usage_error(duration.error());
        w.duration = *duration;
    }
    auto timeout = watch::parse_duration(o.timeout);
    if (!timeout) return usage_error(timeout.error());
    w.sample_timeout = *timeout;
    if (auto step = host->env(kStepOverride); step && !step->empty()) {
        auto parsed = watch::parse_duration(*step);
        if (!parsed) return usage_error({Errc::usage, std::string(kStepOverride) + ": " + parsed.error().message});
        w.clock_step = *parsed;
        const auto shown = report::outside_text(*step, report::Medium::terminal);
        if (!o.json && !out.quiet)
            out.err << "cudoctor watch: " << kStepOverride << "=" << shown << " is active: samples are stamped " << shown
                    << " apart, not by the clock\n";
    }
    w.out_dir = o.out ? *o.out : default_out_dir();
    w.kernel_log = o.kernel_log;
    // On this machine a relative path is taken from the working folder; in an image, from its root.
    if (w.kernel_log && !host->is_rooted() && !w.kernel_log->starts_with('/'))
        w.kernel_log = std::filesystem::absolute(*w.kernel_log).lexically_normal().string();
    w.live_status = !o.json && !out.quiet && out.err_is_terminal;
    // Why there is nothing to see (no driver here, an image's libraries never loaded), said at
    // once rather than after hours of empty samples; -q leaves it to the verdict line.
    if (!out.quiet)
        w.note = [&err = out.err](const std::string& line) {
            err << "cudoctor watch: " << report::outside_text(line, report::Medium::terminal) << "\n" << std::flush;
        };
    w.echo_fd = o.json ? STDERR_FILENO : STDOUT_FILENO;
    w.extra_env = color_environment(out.color_mode);
    auto end = watch::run_watch(*host, w);
    if (!end) return usage_error(end.error());
    if (!o.json && !out.quiet) out.err << "cudoctor watch: " << end->why << " after " << end->samples << " samples\n";
    return report(w.out_dir, o.machine.kb_dir, o.json, end->interrupted ? std::optional<ExitStatus>(ExitStatus::interrupted) : std::nullopt,
                  out);
}

}  // namespace

Command add_watch_command(CLI::App& app) {
    auto options = std::make_shared<WatchCliOptions>();
    auto* cmd = app.add_subcommand(
        "watch", "watch GPU memory, utilisation, temperature, power and Xid errors over hours; tell a leak from a caching allocator");
    cmd->add_option("--pid", options->pid, "watch this process and its children (their GPU memory); ends when it ends");
    cmd->add_option("command", options->command, "or launch this command (after --) and watch it: its exit and CUDA errors in its output");
    cmd->add_option("--interval", options->interval, "time between samples: 10s (default), 500ms, 1m");
    cmd->add_option("--duration", options->duration, "stop after this long: 30m, 24h (default: until the process ends or Ctrl-C)");
    cmd->add_option("--out", options->out, "folder for the CSV files, command.log and memory.svg (default: ./cudoctor-watch-DATE-TIME)");
    cmd->add_option("--kernel-log", options->kernel_log,
                    "follow this file for driver reports (default: /var/log/kern.log, else journalctl -k)");
    cmd->add_option("--timeout", options->timeout, "time limit of one NVML sample (default 10s): a hung driver costs one sample");
    add_machine_options(cmd, options->machine);
    cmd->add_flag("--json", options->json, "print the summary as JSON (the command's output goes to stderr)");

    auto* rep = cmd->add_subcommand("report", "summarise a watch folder again: memory trends, Xid reports, the plot");
    rep->add_option("dir", options->report_dir, "the folder a watch wrote (--out)")->required();
    auto* rep_json = rep->add_flag("--json", options->json, "print JSON (same as --format json)");
    add_format_option(rep, options->report_format, {"text", "json", "prometheus"},
                      "text, json, or prometheus (memory in use, memory trends, Xid reports as metrics)")
        ->excludes(rep_json);
    add_machine_options(rep, options->machine, {.root = false});
    return {cmd, [options, rep](const Output& o) {
                if (rep->parsed()) {
                    bool markdown = false, prometheus = false;
                    apply_format(options->report_format, options->json, markdown, prometheus);
                    return report(options->report_dir, options->machine.kb_dir, options->json, std::nullopt, o, prometheus);
                }
                return run_watch_command(*options, o);
            }};
}

}  // namespace cudoctor::commands
