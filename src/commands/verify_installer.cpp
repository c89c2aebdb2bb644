// Placeholder until the `verify-installer` issue lands: the subcommand exists and says so.
#include <iostream>

#include "commands/command.hpp"

namespace cudoctor::commands {

Command add_verify_installer_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("verify-installer", "is this downloaded installer whole and genuine (not built yet)");
    cmd->allow_extras();
    return {cmd, [] {
                std::cerr << "cudoctor: `verify-installer` is not built yet\n";
                return ExitStatus::usage;
            }};
}

}  // namespace cudoctor::commands
