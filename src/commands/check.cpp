#include "commands/check.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

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

}  // namespace cudoctor::commands
