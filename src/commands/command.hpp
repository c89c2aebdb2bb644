#pragma once
// How main.cpp meets a subcommand: each commands/<name>.cpp adds its subcommand and options to
// the CLI11 app and returns what to run when the user chose it.
#include <functional>

#include <CLI/CLI.hpp>

#include "commands/exit_status.hpp"

namespace cudoctor::commands {

struct Command {
    CLI::App* app = nullptr;          ///< the subcommand, for "was it chosen?"
    std::function<ExitStatus()> run;  ///< called after a successful parse, writes to std::cout/cerr
};

Command add_check_command(CLI::App& app);
Command add_rules_command(CLI::App& app);

}  // namespace cudoctor::commands
