// The commands by name: what main() builds, the whole tree or only the command a run names.
#include <array>

#include "commands/command.hpp"

namespace cudoctor::commands {
namespace {

constexpr std::array kCommands = {
    CommandEntry{"check", add_check_command},
    CommandEntry{"rules", add_rules_command},
    CommandEntry{"explain", add_explain_command},
    CommandEntry{"arch", add_arch_command},
    CommandEntry{"verify", add_verify_command},
    CommandEntry{"verify-installer", add_verify_installer_command},
    CommandEntry{"list", add_list_command},
    CommandEntry{"use", add_use_command},
    CommandEntry{"init", add_init_command},
    CommandEntry{"switch", add_switch_command},
    CommandEntry{"modulefile", add_modulefile_command},
    CommandEntry{"uninstall", add_uninstall_command},
    CommandEntry{"plan", add_plan_command},
    CommandEntry{"compare", add_compare_command},
    CommandEntry{"opencv", add_opencv_command},
    CommandEntry{"watch", add_watch_command},
    CommandEntry{"fleet", add_fleet_command},
    CommandEntry{"kernels", add_kernels_command},
    CommandEntry{"inventory", add_inventory_command},
};

}  // namespace

std::span<const CommandEntry> command_table() { return kCommands; }

std::optional<CommandEntry> only_command(std::span<const char* const> args) {
    std::optional<CommandEntry> named;
    for (const char* arg : args) {
        const std::string_view a = arg;
        if (a == "-h" || a == "--help" || a == "--help-all") return std::nullopt;
        if (named) continue;
        if (a.starts_with("__")) return std::nullopt;  // __generate, __complete: the docs commands
        for (const auto& e : kCommands)
            if (a == e.name) named = e;
    }
    return named ? named : kCommands.front();
}

}  // namespace cudoctor::commands
