// Placeholder until the command lands: registered so main.cpp and command.hpp need no edit.
#include <iostream>

#include "commands/command.hpp"

namespace cudoctor::commands {

Command add_list_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("list", "(not yet available)");
    return {cmd, [] {
                std::cerr << "cudoctor list: not yet available\n";
                return ExitStatus::usage;
            }};
}

}  // namespace cudoctor::commands
