// `cudoctor watch [--pid PID | -- COMMAND…]`: long-run stability. GPU memory per process over
// hours with its trend (leak, flat, a caching allocator's sawtooth), utilisation, temperature,
// power, clocks, the driver's Xid reports and a launched command's CUDA errors; written to CSV
// as it goes, summarised at the end or later with `cudoctor watch report DIR`.
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "host/host.hpp"
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
    std::optional<std::string> root;
    std::optional<std::string> kb_dir;
    bool json = false;
    std::string report_dir;
};

ExitStatus usage_error(bool json, const Error& e) { return report_error(e, json, "watch", std::cout, std::cerr); }

/// Reads DIR, prints the summary, writes DIR/memory.svg.
ExitStatus report(const std::string& dir, const std::optional<std::string>& kb_dir, bool json, std::optional<ExitStatus> ended) {
    auto xids = watch::XidCatalog::load(kb_dir);
    if (!xids) return usage_error(json, xids.error());
    auto record = watch::read_watch_dir(dir);
    if (!record) return usage_error(json, record.error());
    const auto summary = watch::summarise(*record, *xids, dir);
    std::ofstream(dir + "/memory.svg") << watch::memory_svg(summary);
    if (json) std::cout << watch::to_json(summary).dump(2) << "\n";
    else watch::render_text(summary, std::cout);
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

ExitStatus run_watch_command(const WatchCliOptions& o) {
    if (o.pid && !o.command.empty()) return usage_error(o.json, {Errc::usage, "give --pid or a command after --, not both"});
    auto host = o.root ? host::Host::rooted(*o.root) : Expected<host::Host>(host::Host::real());
    if (!host) return usage_error(o.json, host.error());
    if (auto xids = watch::XidCatalog::load(o.kb_dir); !xids) return usage_error(o.json, xids.error());
    watch::WatchOptions w;
    w.pid = o.pid;
    w.command = o.command;
    auto interval = watch::parse_duration(o.interval);
    if (!interval) return usage_error(o.json, interval.error());
    w.interval = *interval;
    if (o.duration) {
        auto duration = watch::parse_duration(*o.duration);
        if (!duration) return usage_error(o.json, duration.error());
        w.duration = *duration;
    }
    auto timeout = watch::parse_duration(o.timeout);
    if (!timeout) return usage_error(o.json, timeout.error());
    w.sample_timeout = *timeout;
    if (auto step = host->env(kStepOverride); step && !step->empty()) {
        auto parsed = watch::parse_duration(*step);
        if (!parsed) return usage_error(o.json, {Errc::usage, std::string(kStepOverride) + ": " + parsed.error().message});
        w.clock_step = *parsed;
        if (!o.json)
            std::cerr << "cudoctor watch: " << kStepOverride << "=" << *step << " is active: samples are stamped " << *step
                      << " apart, not by the clock\n";
    }
    w.out_dir = o.out ? *o.out : default_out_dir();
    w.kernel_log = o.kernel_log;
    // On this machine a relative path is taken from the working folder; in an image, from its root.
    if (w.kernel_log && !host->is_rooted() && !w.kernel_log->starts_with('/'))
        w.kernel_log = std::filesystem::absolute(*w.kernel_log).lexically_normal().string();
    w.live_status = !o.json && ::isatty(STDERR_FILENO);
    w.echo_fd = o.json ? STDERR_FILENO : STDOUT_FILENO;
    auto end = watch::run_watch(*host, w);
    if (!end) return usage_error(o.json, end.error());
    if (!o.json) std::cerr << "cudoctor watch: " << end->why << " after " << end->samples << " samples\n";
    return report(w.out_dir, o.kb_dir, o.json, end->interrupted ? std::optional<ExitStatus>(ExitStatus::interrupted) : std::nullopt);
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
    cmd->add_option("--root", options->root, "a machine image (a folder laid out like /): its kernel log, /proc and environment");
    cmd->add_option("--kb", options->kb_dir, "read knowledge-base tables (xid_codes.tsv) from DIR");
    cmd->add_flag("--json", options->json, "print the summary as JSON (the command's output goes to stderr)");

    auto* rep = cmd->add_subcommand("report", "summarise a watch folder again: memory trends, Xid reports, the plot");
    rep->add_option("dir", options->report_dir, "the folder a watch wrote (--out)")->required();
    rep->add_flag("--json", options->json, "print JSON");
    rep->add_option("--kb", options->kb_dir, "read knowledge-base tables (xid_codes.tsv) from DIR");
    return {cmd, [options, rep] {
                if (rep->parsed()) return report(options->report_dir, options->kb_dir, options->json, std::nullopt);
                return run_watch_command(*options);
            }};
}

}  // namespace cudoctor::commands
