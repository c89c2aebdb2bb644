// `cudoctor switch VERSION`: the machine-wide default. /usr/local/cuda (or update-alternatives'
// link behind it) repointed atomically, as a Plan: printed, applied only with --apply.
#include <iostream>
#include <memory>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "plan/print_or_apply.hpp"
#include "toolkits/machine.hpp"
#include "toolkits/match.hpp"
#include "toolkits/switch_plan.hpp"

namespace cudoctor::commands {
namespace {

struct SwitchOptions {
    std::string version;
    std::optional<std::string> root;
    std::optional<std::string> kb_dir;
    bool json = false;
    bool apply = false;
};

ExitStatus usage_error(const SwitchOptions& options, const Error& e) {
    return report_error(e, options.json, "switch", std::cout, std::cerr);
}

ExitStatus run_switch(const SwitchOptions& options) {
    auto machine = toolkits::load_machine(options.root, options.kb_dir);
    if (!machine) return usage_error(options, machine.error());
    const auto& m = **machine;
    auto entry = toolkits::match_toolkit(m.host, m.inventory, options.version);
    if (!entry) return usage_error(options, entry.error());
    auto plan = toolkits::plan_switch(m.host, m.inventory, **entry);
    if (!plan) return usage_error(options, plan.error());
    return plan::print_or_apply(m.host, *plan, options.apply, options.json, std::cout);
}

}  // namespace

Command add_switch_command(CLI::App& app) {
    auto options = std::make_shared<SwitchOptions>();
    auto* cmd = app.add_subcommand("switch",
                                   "make one toolkit the machine's default: /usr/local/cuda repointed atomically (a plan; --apply does it)");
    cmd->add_option("version", options->version, "12, 12.4, 12.4.1 or a folder")->required();
    cmd->add_flag("--apply", options->apply, "do it (as root where the files need it); without it, only print the plan");
    cmd->add_flag("--json", options->json, "print JSON");
    cmd->add_option("--root", options->root, "a machine image (a folder laid out like /): the plan is made, and applied, there");
    cmd->add_option("--kb", options->kb_dir, "read knowledge-base tables from DIR");
    return {cmd, [options] { return run_switch(*options); }};
}

}  // namespace cudoctor::commands
