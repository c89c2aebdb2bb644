// `cudoctor switch VERSION`: the machine-wide default. /usr/local/cuda (or update-alternatives'
// link behind it) repointed atomically, as a Plan: printed, applied only with --apply.
#include <memory>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "plan/print_or_apply.hpp"
#include "toolkits/match.hpp"
#include "toolkits/switch_plan.hpp"

namespace cudoctor::commands {
namespace {

struct SwitchOptions {
    std::string version;
    MachineOptions machine;  ///< --root, --kb
    bool json = false;
    bool apply = false;
    bool quiet = false;  ///< main's -q/--quiet: the plan's headline, or with --apply its outcome, in one line
};

ExitStatus usage_error(const SwitchOptions& options, std::ostream& out, std::ostream& err, const Error& e) {
    return report_error(e, options.json, "switch", out, err);
}

ExitStatus run_switch(const SwitchOptions& options, std::ostream& out, std::ostream& err) {
    auto machine = open_machine(options.machine, {.probe = Probe::all, .inventory = toolkits::InventoryOptions{}});
    if (!machine) return usage_error(options, out, err, machine.error());
    const auto& m = *machine;
    auto entry = toolkits::match_toolkit(m.host, m.inventory, options.version);
    if (!entry) return usage_error(options, out, err, entry.error());
    const auto& d = m.snap.driver;
    const bool gpu_usable = (!m.snap.gpus.empty() || m.snap.platform.wsl_gpu) &&
                            (!d.kernel_module_version.empty() || !d.windows_version.empty() || !d.libraries.empty());
    auto plan = toolkits::plan_switch(m.host, m.inventory, **entry, gpu_usable);
    if (!plan) return usage_error(options, out, err, plan.error());
    return plan::print_or_apply(m.host, *plan, {options.apply, options.json, options.quiet, "switch"}, out, err);
}

}  // namespace

Command add_switch_command(CLI::App& app) {
    auto options = std::make_shared<SwitchOptions>();
    auto* cmd = app.add_subcommand("switch",
                                   "make one toolkit the machine's default: /usr/local/cuda repointed atomically (a plan; --apply does it)");
    cmd->add_option("version", options->version, "12, 12.4, 12.4.1 or a folder")->required();
    cmd->add_flag("--apply", options->apply, "do it (as root where the files need it); without it, only print the plan");
    cmd->add_flag("--json", options->json, "print JSON");
    add_machine_options(cmd, options->machine);
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                return run_switch(*options, o.out, o.err);
            }};
}

}  // namespace cudoctor::commands
