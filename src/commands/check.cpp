#include "commands/check.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "probe/context.hpp"
#include "report/report.hpp"
#include "rules/rules.hpp"
#include "snapshot/snapshot_json.hpp"

namespace cudoctor::commands {
namespace {

ExitStatus usage_error(const CheckOptions& options, std::ostream& err, const Error& e) {
    if (options.json) {
        err << nlohmann::json{{"error", {{"code", to_string(e.code)}, {"message", e.message}}}}.dump() << "\n";
    } else {
        err << "cudoctor: " << e.message << "\n";
    }
    return ExitStatus::usage;
}

Expected<snapshot::Snapshot> load_snapshot(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return fail(Errc::not_found, "cannot open snapshot " + file);
    std::string data;
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        data.append(buf, static_cast<std::size_t>(in.gcount()));
        if (data.size() > (256u << 20)) return fail(Errc::too_large, "snapshot " + file + " is larger than 256 MiB");
    }
    auto snap = snapshot::from_json_text(data);
    if (!snap) return fail(snap.error().code, file + ": " + snap.error().message);
    return snap;
}

}  // namespace

ExitStatus run_check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
    auto kb = kb::Kb::load(options.kb_dir);
    if (!kb) return usage_error(options, err, kb.error());

    snapshot::Snapshot snap;
    if (options.snapshot_file) {
        auto loaded = load_snapshot(*options.snapshot_file);
        if (!loaded) return usage_error(options, err, loaded.error());
        snap = std::move(*loaded);
    } else {
        auto host = options.root ? host::Host::rooted(*options.root) : Expected<host::Host>(host::Host::real());
        if (!host) return usage_error(options, err, host.error());
        probe::Options probe_options;
        probe_options.pythons = options.pythons;
        probe_options.allow_processes = !options.no_exec;
        snap = probe::probe_machine(*host, *kb, probe_options);
    }
    // Findings are always recomputed: a snapshot from an older cudoctor gets today's rules.
    snap.findings = rules::evaluate(snap, *kb);

    if (options.json) report::render_json(snap, out);
    else if (options.markdown) report::render_markdown(snap, out);
    else report::render_text(snap, {options.color, options.verbose}, out);

    return rules::worst_at_least(snap.findings, options.fail_on) ? ExitStatus::problems : ExitStatus::healthy;
}

Command add_check_command(CLI::App& app) {
    auto options = std::make_shared<CheckOptions>();
    auto* cmd = app.add_subcommand("check", "inventory the CUDA stack: GPU, driver, toolkits, cuDNN, frameworks, and what is wrong");
    cmd->add_option("--root", options->root, "probe a machine image (a folder laid out like /) instead of this machine");
    cmd->add_option("--snapshot", options->snapshot_file, "render a saved snapshot (from check --json) instead of probing")
        ->excludes("--root");
    cmd->add_option("--kb", options->kb_dir, "read knowledge-base tables from DIR (newer than the built-in ones)");
    cmd->add_flag("--json", options->json, "print the snapshot as versioned JSON");
    cmd->add_flag("--markdown", options->markdown, "print Markdown, ready to paste into a GitHub issue");
    cmd->add_flag("-v,--verbose", options->verbose, "show the evidence of every fact");
    cmd->add_option("--python", options->pythons, "also inspect this Python interpreter's packages (repeatable)");
    cmd->add_flag("--no-exec", options->no_exec, "never start a child process (not even nvcc --version)");
    cmd->add_option("--fail-on", options->fail_on, "exit 1 on findings of this severity or worse")
        ->check(CLI::IsMember({"error", "warning"}));
    return {cmd, [options] {
                const char* no_color = std::getenv("NO_COLOR");
                options->color = ::isatty(STDOUT_FILENO) && !(no_color && *no_color);
                return run_check(*options, std::cout, std::cerr);
            }};
}

}  // namespace cudoctor::commands
