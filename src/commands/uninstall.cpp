// `cudoctor uninstall VERSION`: a removal plan built from who installed what (runfile
// uninstaller, the exact dpkg packages, pip, conda), then the leftovers. Never the driver.
#include <iostream>
#include <memory>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "plan/print_or_apply.hpp"
#include "toolkits/machine.hpp"
#include "toolkits/match.hpp"
#include "toolkits/uninstall_plan.hpp"

namespace cudoctor::commands {
namespace {

struct UninstallOptions {
    std::string version;
    std::optional<std::string> root;
    std::optional<std::string> kb_dir;
    bool json = false;
    bool apply = false;
};

ExitStatus usage_error(const UninstallOptions& options, const Error& e) {
    return report_error(e, options.json, "uninstall", std::cout, std::cerr);
}

ExitStatus run_uninstall(const UninstallOptions& options) {
    toolkits::InventoryOptions inv_options;
    inv_options.sizes = false;
    auto machine = toolkits::load_machine(options.root, options.kb_dir, inv_options);
    if (!machine) return usage_error(options, machine.error());
    const auto& m = **machine;
    auto entry = toolkits::match_toolkit(m.host, m.inventory, options.version);
    if (!entry) return usage_error(options, entry.error());
    auto plan = toolkits::plan_uninstall(m.host, m.snap, m.inventory, **entry);
    if (!plan) return usage_error(options, plan.error());
    return plan::print_or_apply(m.host, *plan, options.apply, options.json, std::cout);
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
    cmd->add_option("--root", options->root, "a machine image (a folder laid out like /): the plan is made, and applied, there");
    cmd->add_option("--kb", options->kb_dir, "read knowledge-base tables from DIR");
    return {cmd, [options] { return run_uninstall(*options); }};
}

}  // namespace cudoctor::commands
