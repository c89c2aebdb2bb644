// `cudoctor list`: every CUDA toolkit on the machine (runfile, deb, pip, conda), with its size,
// the cuDNN inside it, which one /usr/local/cuda names, which one this shell finds, and what
// still references it.
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "report/style.hpp"

namespace cudoctor::commands {
namespace {

struct ListOptions {
    MachineOptions machine;  ///< --root, --kb
    bool json = false;
    bool no_size = false;
    bool quiet = false;  ///< main's -q/--quiet: how many toolkits and which is the default, in one line
};

ExitStatus usage_error(const ListOptions& options, std::ostream& out, std::ostream& err, const Error& e) {
    return report_error(e, options.json, "list", out, err);
}

void write_text(const toolkits::Inventory& inv, std::ostream& out) {
    if (inv.toolkits.empty()) {
        out << "No CUDA toolkit found on this machine.\n";
        return;
    }
    out << "CUDA toolkits on this machine (" << inv.toolkits.size() << "):\n";
    for (const auto& e : inv.toolkits) {
        const auto& tk = e.toolkit;
        std::string version = e.release.empty() ? tk.version : e.release;
        if (!e.release.empty() && e.release != tk.version) version += " (nvcc " + tk.version + ")";
        std::string size = e.size_bytes ? toolkits::human_size(*e.size_bytes) + (e.size_partial ? "+" : "") : "-";
        std::string cudnn = e.cudnn.empty() ? "no cuDNN" : "cuDNN " + e.cudnn.front();
        std::string marks;
        if (tk.is_default) marks += "  [default: /usr/local/cuda" + (inv.default_via.empty() ? "" : " via " + inv.default_via) + "]";
        if (tk.first_on_path) marks += "  [wins in this shell]";
        else if (tk.on_path) marks += "  [on PATH]";
        out << fmt::format("  {} {:<26} {:<42} {:<8} {:>10}  {}{}\n", tk.is_default ? '*' : ' ', version, tk.path,
                           snapshot::to_string(tk.install_method), size, cudnn, marks);
        for (const auto& r : e.references) {
            out << "        " << toolkits::to_string(r.kind) << ": " << r.file;
            if (r.line > 0) out << ":" << r.line;
            out << "  " << r.text << "\n";
        }
    }
    if (inv.default_link.empty()) out << "/usr/local/cuda: absent or dangling.\n";
}

void render_text(const toolkits::Inventory& inv, std::ostream& out) {
    // Paths, file names and lines quoted from shell rc files come from the machine, and the view's
    // own words hold no control byte: the finished view goes through the one escape, line by line.
    std::ostringstream text;
    write_text(inv, text);
    out << report::outside_lines(text.str());
}

/// -q's line: "3 CUDA toolkits; default: 12.4.1 (/usr/local/cuda-12.4)".
std::string verdict_line(const toolkits::Inventory& inv) {
    if (inv.toolkits.empty()) return "No CUDA toolkit found on this machine.";
    std::string s = std::to_string(inv.toolkits.size()) + (inv.toolkits.size() == 1 ? " CUDA toolkit" : " CUDA toolkits");
    for (const auto& e : inv.toolkits)
        if (e.toolkit.is_default) return s + "; default: " + toolkits::label(e);
    if (inv.default_link.empty()) return s + "; no default (/usr/local/cuda absent or dangling)";
    return s + "; /usr/local/cuda leads to " + inv.default_link + ", none of them";
}

ExitStatus run_list(const ListOptions& options, std::ostream& out, std::ostream& err) {
    // -q prints no size: no folder is walked for one.
    auto machine = open_machine(options.machine,
                                {.probe = Probe::all, .inventory = toolkits::InventoryOptions{.sizes = !options.no_size && !options.quiet}});
    if (!machine) return usage_error(options, out, err, machine.error());
    const auto& inv = machine->inventory;
    if (options.json) out << report::json_text(toolkits::to_json(inv)) << "\n";
    else if (options.quiet) out << verdict_line(inv) << "\n";
    else render_text(inv, out);
    return ExitStatus::healthy;
}

}  // namespace

Command add_list_command(CLI::App& app) {
    auto options = std::make_shared<ListOptions>();
    auto* cmd =
        app.add_subcommand("list",
                           "every CUDA toolkit installed: version, folder, install method, size, cuDNN inside, default, what references it");
    cmd->add_flag("--json", options->json, "print JSON");
    cmd->add_flag("--no-size", options->no_size, "do not walk the folders for their size (faster)");
    add_machine_options(cmd, options->machine);
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                return run_list(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
