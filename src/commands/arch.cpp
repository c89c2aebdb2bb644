// Placeholder until the `arch` issue lands: the subcommand exists and says so.
#include <iostream>

#include "commands/command.hpp"

namespace cudoctor::commands {

Command add_arch_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("arch", "which GPU architectures a binary carries, and whether this GPU runs it (not built yet)");
    cmd->allow_extras();
    return {cmd, [] {
                std::cerr << "cudoctor: `arch` is not built yet\n";
                return ExitStatus::usage;
            }};
}

}  // namespace cudoctor::commands
