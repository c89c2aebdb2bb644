// `cudoctor compare REF TEST`: layer-by-layer numeric alignment of two dumps of named tensors
// (safetensors, .npz, a folder of .npy) — the check that accepts a move to another backend, and
// the first layer where it went wrong.
#include <charconv>
#include <cmath>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "compare/compare.hpp"
#include "compare/plot.hpp"
#include "compare/report.hpp"
#include "host/files.hpp"
#include "host/host.hpp"
#include "report/style.hpp"

namespace cudoctor::commands {
namespace {

struct CompareCliOptions {
    std::string ref, test;
    std::vector<std::string> maps;
    std::optional<std::string> map_file, tolerance_file, plot;
    std::optional<double> rtol, atol, rel;
    std::string sort = "order";
    bool check_dtype = false;
    bool strict = false;
    double slower = compare::kDefaultSlowerRatio;
    bool json = false;
    unsigned threads = 0;
    bool quiet = false;  ///< main's -q/--quiet: the one-line count only
    bool color = false;  ///< main's colour decision for standard output
};

Expected<std::string> read_text(const host::Host& host, const std::string& path, const char* what) {
    auto text = host.read_file(command_line_path(path), 16u << 20);
    if (!text) return fail(text.error().code, std::string(what) + " " + path + ": " + text.error().message);
    return text;
}

ExitStatus run_compare(const CompareCliOptions& o, std::ostream& out, std::ostream& err) {
    const auto usage_error = [&](const CompareCliOptions& options, const Error& e) {
        return report_error(e, options.json, "compare", out, err);
    };
    const host::Host host = host::Host::real();
    compare::CompareOptions options;
    options.sort_by_name = o.sort == "name";
    options.check_dtype = o.check_dtype;
    options.threads = o.threads;
    options.strict = o.strict;
    options.slower_ratio = o.slower;
    options.overrides = {o.rtol, o.atol, o.rel, false};
    for (const auto& m : o.maps)
        if (auto ok = options.map.add(m); !ok) return usage_error(o, ok.error());
    if (o.map_file) {
        auto text = read_text(host, *o.map_file, "map file");
        if (!text) return usage_error(o, text.error());
        if (auto ok = options.map.add_file(*text); !ok)
            return usage_error(o, {ok.error().code, "map file " + *o.map_file + ": " + ok.error().message});
    }
    if (o.tolerance_file) {
        auto text = read_text(host, *o.tolerance_file, "tolerance file");
        if (!text) return usage_error(o, text.error());
        auto rules = compare::parse_layer_rules(*text);
        if (!rules) return usage_error(o, {rules.error().code, "tolerance file " + *o.tolerance_file + ": " + rules.error().message});
        options.layer_rules = std::move(*rules);
    }

    auto ref = compare::Dump::open(host, command_line_path(o.ref));
    if (!ref) return usage_error(o, ref.error());
    auto test = compare::Dump::open(host, command_line_path(o.test));
    if (!test) return usage_error(o, test.error());

    auto result = compare::compare_dumps(*ref, *test, options);
    result.ref_path = o.ref;
    result.test_path = o.test;
    if (result.results.empty())
        return usage_error(o, {Errc::usage, "no tensor names in common (REF has " + std::to_string(ref->tensors().size()) + ", TEST " +
                                                std::to_string(test->tensors().size()) + "): rename with --map OLD=NEW or --map-file"});

    if (o.plot) {
        if (auto written = host::write_atomically(*o.plot, compare::render_svg(result)); !written) return usage_error(o, written.error());
    }
    if (o.json) out << report::json_text(compare::to_json(result)) << "\n";
    else if (o.quiet) {
        out << result.results.size() << " tensors compared: " << result.count(compare::Status::fail) << " fail";
        if (result.first_failure) out << "; first failure: " << result.results[*result.first_failure].name;
        if (result.strict && (!result.only_ref.empty() || !result.only_test.empty()))
            out << "; --strict: " << result.only_ref.size() + result.only_test.size() << " in only one dump";
        if (result.speed.available) out << "; " << result.speed.slower_count() << " layers slower";
        out << "\n";
    } else {
        compare::render_text(result, out, o.color);
    }
    return result.failed() ? ExitStatus::problems : ExitStatus::healthy;
}

}  // namespace

Command add_compare_command(CLI::App& app) {
    auto o = std::make_shared<CompareCliOptions>();
    auto* cmd = app.add_subcommand(
        "compare",
        "layer-by-layer numeric comparison of two tensor dumps (REF vs TEST backend): errors, tolerances, the first layer that diverges");
    cmd->add_option("ref", o->ref, "the reference dump: .safetensors, .npz, a folder of .npy, or one .npy")->required();
    cmd->add_option("test", o->test, "the dump of the backend under test, same formats")->required();
    cmd->add_option("--map", o->maps, "REF name = TEST name, for renamed layers; OLD*=NEW* renames a prefix (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--map-file", o->map_file, "a file of OLD=NEW (or OLD NEW) lines");
    // CLI::NonNegativeNumber's message spells out the largest double (300 digits).
    const CLI::Validator non_negative(
        [](std::string& text) -> std::string {
            double v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec != std::errc() || end != text.data() + text.size() || !(v >= 0) || !std::isfinite(v))
                return "'" + text + "' is not a number ≥ 0";
            return {};
        },
        "NUMBER ≥ 0");
    cmd->add_option("--rtol", o->rtol, "elementwise relative tolerance for every tensor (also the layer limit unless --rel)")->check(non_negative);
    cmd->add_option("--atol", o->atol, "elementwise absolute tolerance for every tensor")->check(non_negative);
    cmd->add_option("--rel", o->rel, "limit of the layer's relative error ||TEST-REF||/||REF||")->check(non_negative);
    cmd->add_option("--tolerances", o->tolerance_file, "per-layer tolerances: lines 'GLOB rtol=… atol=… rel=…' or 'GLOB skip'");
    cmd->add_option("--sort", o->sort, "row order: order (as in REF's dump: execution order) or name")->check(CLI::IsMember({"order", "name"}));
    cmd->add_flag("--check-dtype", o->check_dtype, "a dtype difference fails the tensor (by default it is compared at the looser tolerance)");
    cmd->add_option("--threads", o->threads, "threads for large tensors (default: one per CPU)");
    cmd->add_flag("--strict", o->strict, "a tensor that exists in only one dump fails the comparison (exit 1)");
    cmd->add_option("--slower", o->slower,
                    "name the layers whose TEST time is over this multiple of their REF time (default 1.5; needs both dumps' timings)")
        ->check(CLI::Range(1.0, 1e9));
    cmd->add_option("--plot", o->plot,
                    "write an SVG chart of each layer's relative error (log scale) with the tolerance line, and of each layer's time "
                    "ratio TEST/REF when both dumps carry timings");
    cmd->add_flag("--json", o->json, "print JSON");
    return {cmd, [o](const Output& output) {
                o->quiet = output.quiet;
                o->color = output.color;
                return run_compare(*o, output.out, output.err);
            }};
}

}  // namespace cudoctor::commands
