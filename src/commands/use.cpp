// Placeholder until the command lands: registered so main.cpp and command.hpp need no edit.
#include <iostream>

#include "commands/command.hpp"

namespace cudoctor::commands {

Command add_use_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("use", "(not yet available)");
    return {cmd, [] {
                std::cerr << "cudoctor use: not yet available\n";
                return ExitStatus::usage;
            }};
}

Command add_init_command(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand("init", "(not yet available)");
    return {cmd, [] {
                std::cerr << "cudoctor init: not yet available\n";
                return ExitStatus::usage;
            }};
}

}  // namespace cudoctor::commands
