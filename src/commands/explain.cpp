// Placeholder until the `explain` issue lands: the subcommand exists and says so.
#include <iostream>

#include "commands/command.hpp"

namespace cudoctor::commands {

Command add_explain_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("explain", "read an error message or a log and name its cause on this machine (not built yet)");
    cmd->allow_extras();
    return {cmd, [] {
                std::cerr << "cudoctor: `explain` is not built yet\n";
                return ExitStatus::usage;
            }};
}

}  // namespace cudoctor::commands
