// `cudoctor uninstall VERSION`: a removal plan built from who installed what (runfile
// uninstaller, the exact dpkg packages, pip, conda), then the leftovers. Never the driver.
#include <memory>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "plan/print_or_apply.hpp"
#include "toolkits/match.hpp"
#include "toolkits/uninstall_plan.hpp"

namespace cudoctor::commands {
namespace {

struct UninstallOptions {
    std::string version;
    MachineOptions machine;  ///< --root, --kb
    bool json = false;
    bool apply = false;
    bool quiet = false;  ///< main's -q/--quiet: the plan's headline, or with --apply its outcome, in one line
};

ExitStatus usage_error(const UninstallOptions& options, std::ostream& out, std::ostream& err, const Error& e) {
    return report_error(e, options.json, "uninstall", out, err);
}

ExitStatus run_uninstall(const UninstallOptions& options, std::ostream& out, std::ostream& err) {
    auto machine = open_machine(options.machine, {.probe = Probe::all, .inventory = toolkits::InventoryOptions{.sizes = false}});
    if (!machine) return usage_error(options, out, err, machine.error());
    const auto& m = *machine;
    auto entry = toolkits::match_toolkit(m.host, m.inventory, options.version);
    if (!entry) return usage_error(options, out, err, entry.error());
    auto plan = toolkits::plan_uninstall(m.host, m.snap, m.inventory, **entry);
    if (!plan) return usage_error(options, out, err, plan.error());
    return plan::print_or_apply(m.host, *plan, {options.apply, options.json, options.quiet, "uninstall"}, out, err);
}

}  // namespace

Command add_uninstall_command(CLI::App& app) {
    auto options = std::make_shared<UninstallOptions>();
    auto* cmd =
        app.add_subcommand("uninstall",
                           "remove one toolkit safely: its own uninstaller or exact packages, then the leftovers (a plan; --apply does it)");
    cmd->add_option("version", options->version, "12, 12.4, 12.4.1 or a folder")->required();
    cmd->add_flag("--apply", options->apply, "do it (as root where the files need it); without it, only print the plan");
    cmd->add_flag("--json", options->json, "print JSON");
    add_machine_options(cmd, options->machine);
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                return run_uninstall(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
