// `cudoctor modulefile VERSION|--all [--lmod] [--dir DIR [--apply]]`: Environment Modules (Tcl)
// or Lmod (Lua) modulefiles, one CUDA module at a time. Printed to stdout; with --dir, a plan that
// writes DIR/cuda/<version>[.lua].
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "plan/print_or_apply.hpp"
#include "report/style.hpp"
#include "toolkits/match.hpp"
#include "toolkits/modulefile.hpp"

namespace cudoctor::commands {
namespace {

struct ModulefileOptions {
    std::optional<std::string> version;
    bool all = false;
    bool lmod = false;
    std::optional<std::string> dir;
    MachineOptions machine;  ///< --root, --kb
    bool json = false;
    bool apply = false;
    bool quiet = false;  ///< main's -q/--quiet: with --dir, the plan's headline or outcome; the files themselves are data, kept
};

ExitStatus run_modulefile(const ModulefileOptions& options, std::ostream& out, std::ostream& err) {
    const auto usage_error = [&](const ModulefileOptions& o, const Error& e) { return report_error(e, o.json, "modulefile", out, err); };
    if (options.all == options.version.has_value()) return usage_error(options, {Errc::usage, "give one VERSION or --all"});
    if (options.apply && !options.dir) return usage_error(options, {Errc::usage, "--apply needs --dir DIR (where the modulefiles go)"});
    if (options.dir && !options.dir->starts_with('/')) return usage_error(options, {Errc::usage, "--dir must be an absolute path"});
    auto machine = open_machine(options.machine, {.probe = Probe::all, .inventory = toolkits::InventoryOptions{.sizes = false}});
    if (!machine) return usage_error(options, machine.error());
    const auto& m = *machine;

    std::vector<const toolkits::Entry*> all;
    for (const auto& e : m.inventory.toolkits)
        if (e.toolkit.has_nvcc || !e.toolkit.lib_dir.empty()) all.push_back(&e);
    const auto names = toolkits::module_versions(all);
    std::vector<std::size_t> chosen;
    if (options.all) {
        for (std::size_t i = 0; i < all.size(); ++i) chosen.push_back(i);
        if (chosen.empty()) return usage_error(options, {Errc::not_found, "no CUDA toolkit found"});
    } else {
        auto entry = toolkits::match_toolkit(m.host, m.inventory, *options.version);
        if (!entry) return usage_error(options, entry.error());
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i] == *entry) chosen.push_back(i);
        if (chosen.empty()) return usage_error(options, {Errc::usage, (*entry)->toolkit.path + " has neither nvcc nor libraries to load"});
    }
    const auto flavour = options.lmod ? toolkits::ModuleFlavour::lua : toolkits::ModuleFlavour::tcl;
    std::vector<toolkits::ModuleFile> files;
    files.reserve(chosen.size());
    for (auto i : chosen) files.push_back(toolkits::make_modulefile(*all[i], toolkits::module_folders(m.host, *all[i]), names[i], flavour));

    if (options.dir) {
        plan::Plan p;
        p.title = std::string(options.lmod ? "Lmod" : "Environment Modules") + " modulefiles for " + std::to_string(files.size()) +
                  " CUDA toolkit" + (files.size() == 1 ? "" : "s") + " in " + *options.dir;
        // DIR/cuda is the module's own folder: made by the plan when missing. DIR itself is the
        // user's MODULEPATH entry: a missing one is more likely a typo than a wish, and preflight says so.
        std::set<std::string> folders;
        for (const auto& f : files) folders.insert(host::dirname(host::join(*options.dir, f.relpath)));
        for (const auto& folder : folders)
            if (!m.host.lstat(folder)) p.steps.push_back(plan::make_folder(folder, "make the module folder " + folder));
        for (const auto& f : files) {
            const std::string path = host::join(*options.dir, f.relpath);
            p.steps.push_back(plan::write_file(m.host, path, f.content, "module " + f.name + " in " + path));
        }
        p.notes.push_back("users add " + *options.dir + " to MODULEPATH (module use " + *options.dir + ")");
        return plan::print_or_apply(m.host, p, {options.apply, options.json, options.quiet, "modulefile"}, out, err);
    }
    if (options.json) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& f : files) list.push_back({{"name", f.name}, {"file", f.relpath}, {"content", f.content}});
        out << report::json_text(nlohmann::json{{"modulefiles", list}}) << "\n";
        return ExitStatus::healthy;
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (files.size() > 1) out << (i ? "\n" : "") << (options.lmod ? "-- " : "## ") << "file: " << files[i].relpath << "\n";
        out << files[i].content;
    }
    return ExitStatus::healthy;
}

}  // namespace

Command add_modulefile_command(CLI::App& app) {
    auto options = std::make_shared<ModulefileOptions>();
    auto* cmd =
        app.add_subcommand("modulefile", "Environment Modules (Tcl) or Lmod (Lua) modulefiles for the toolkits, one CUDA module at a time");
    cmd->add_option("version", options->version, "12, 12.4, 12.4.1 or a folder");
    cmd->add_flag("--all", options->all, "one modulefile per toolkit");
    cmd->add_flag("--lmod", options->lmod, "Lua modulefiles for Lmod (default: Tcl for Environment Modules)");
    cmd->add_option("--dir", options->dir, "write them under DIR/cuda/ (a plan; --apply writes)");
    cmd->add_flag("--apply", options->apply, "with --dir: write the files");
    cmd->add_flag("--json", options->json, "print JSON");
    add_machine_options(cmd, options->machine);
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                return run_modulefile(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
