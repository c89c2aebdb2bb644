// Placeholder until the `verify` issue lands: the subcommand exists and says so.
#include <iostream>

#include "commands/command.hpp"

namespace cudoctor::commands {

Command add_verify_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("verify", "the verification chain: driver, toolkit, cuDNN and frameworks really work (not built yet)");
    cmd->allow_extras();
    return {cmd, [] {
                std::cerr << "cudoctor: `verify` is not built yet\n";
                return ExitStatus::usage;
            }};
}

}  // namespace cudoctor::commands
