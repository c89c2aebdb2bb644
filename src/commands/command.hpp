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
Command add_explain_command(CLI::App& app);           // commands/explain.cpp
Command add_arch_command(CLI::App& app);              // commands/arch.cpp
Command add_verify_command(CLI::App& app);            // commands/verify.cpp
Command add_verify_installer_command(CLI::App& app);  // commands/verify_installer.cpp

}  // namespace cudoctor::commands
