// `cudoctor inventory TRACE`: the operator inventory of a model recorded by
// tools/record_layers.py — step 1 of the migration checklist: every operator with its count and
// layers, and what needs attention on another backend (custom operators, Python
// autograd.Functions, CPU fallbacks).
#include <memory>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "formats/layer_trace.hpp"
#include "formats/npy.hpp"
#include "formats/safetensors.hpp"
#include "host/host.hpp"
#include "host/mapped_file.hpp"
#include "operators/report.hpp"
#include "report/style.hpp"

namespace cudoctor::commands {
namespace {

struct InventoryOptions {
    std::string trace;
    bool json = false;
    bool markdown = false;
    bool quiet = false;
    bool color = false;
};

Expected<formats::LayerTrace> parse_in(const std::string& where, std::string_view text) {
    auto trace = formats::parse_layer_trace(text);
    if (!trace) return fail(trace.error().code, where + ": " + trace.error().message);
    return trace;
}

/// The trace of `shown` (as the user wrote it) at machine path `path`: a trace .json itself, a
/// .safetensors dump (its header's metadata), or an .npz / .npy dump (its sidecar).
Expected<formats::LayerTrace> load_trace(const host::Host& host, const std::string& shown, const std::string& path) {
    const std::string sidecar = path + std::string(formats::kLayerTraceSidecar);
    const auto from_sidecar = [&]() -> Expected<formats::LayerTrace> {
        if (!host.is_file(sidecar))
            return fail(Errc::not_found, shown + ": no layer trace beside it (" + shown + std::string(formats::kLayerTraceSidecar) +
                                             "); record the model with tools/record_layers.py");
        auto text = host.read_file(sidecar, formats::kSafetensorsMaxHeader);
        if (!text) return fail(text.error().code, shown + std::string(formats::kLayerTraceSidecar) + ": " + text.error().message);
        return parse_in(shown + std::string(formats::kLayerTraceSidecar), *text);
    };
    if (host.is_dir(path)) return from_sidecar();  // a folder of .npy files
    auto mapped = host::MappedFile::open(host, path);
    if (!mapped) {
        if (mapped.error().code == Errc::not_found) return fail(Errc::not_found, shown + ": no such file");
        return fail(mapped.error().code, shown + ": " + mapped.error().message);
    }
    const std::string_view bytes = mapped->bytes();
    const auto first = bytes.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && bytes[first] == '{') return parse_in(shown, bytes);
    if (formats::looks_like_npy(bytes) || bytes.starts_with("PK\x03\x04") || bytes.starts_with("PK\x05\x06")) return from_sidecar();
    auto file = formats::parse_safetensors(bytes);
    if (!file)
        return fail(Errc::parse, shown + ": neither a layer trace (JSON) nor a dump (.safetensors, .npz, .npy): " + file.error().message);
    auto trace = formats::layer_trace_in_metadata(file->metadata);
    if (!trace)
        return fail(Errc::not_found, shown + ": a safetensors file without a layer trace (no __metadata__[\"" +
                                         std::string(formats::kLayerTraceKey) + "\"]); record the model with tools/record_layers.py");
    if (!*trace) return fail(trace->error().code, shown + ": " + trace->error().message);
    return std::move(**trace);
}

ExitStatus run_inventory(const InventoryOptions& o, std::ostream& out, std::ostream& err) {
    const host::Host host = host::Host::real();
    auto trace = load_trace(host, o.trace, command_line_path(o.trace));
    if (!trace) return report_error(trace.error(), o.json, "inventory", out, err);
    const auto inv = operators::build_inventory(*trace, o.trace);
    if (o.json) out << report::json_text(operators::to_json(inv)) << "\n";
    else if (o.markdown) operators::render_markdown(inv, out);
    else if (o.quiet) out << operators::summary_line(inv) << "\n";
    else operators::render_text(inv, out, o.color);
    // What needs attention is a to-do list for the move, not a fault of this machine.
    return ExitStatus::healthy;
}

}  // namespace

Command add_inventory_command(CLI::App& app) {
    auto o = std::make_shared<InventoryOptions>();
    auto* cmd = app.add_subcommand("inventory",
                                   "the operator inventory of a model recorded by tools/record_layers.py: each operator's calls and "
                                   "layers, and what needs attention on another backend (custom ops, autograd.Functions, CPU fallbacks)");
    cmd->add_option("trace", o->trace,
                    "a dump written by tools/record_layers.py (.safetensors, or .npz with its .layers.json), or the trace .json")
        ->required();
    cmd->add_flag("--json", o->json, "print JSON");
    cmd->add_flag("--markdown", o->markdown, "print Markdown, ready for an issue or a migration plan")->excludes("--json");
    return {cmd, [o](const Output& output) {
                o->quiet = output.quiet;
                o->color = output.color;
                return run_inventory(*o, output.out, output.err);
            }};
}

}  // namespace cudoctor::commands
