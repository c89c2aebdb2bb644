#pragma once
// How main.cpp meets a subcommand: each commands/<name>.cpp adds its subcommand and options to
// the CLI11 app and returns what to run when the user chose it.
#include <functional>

#include <CLI/CLI.hpp>

#include "common/exit_status.hpp"

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
// Several toolkits side by side.
Command add_list_command(CLI::App& app);        // commands/list.cpp
Command add_use_command(CLI::App& app);         // commands/use.cpp
Command add_init_command(CLI::App& app);        // commands/use.cpp (the shell function for `use`)
Command add_switch_command(CLI::App& app);      // commands/switch.cpp
Command add_modulefile_command(CLI::App& app);  // commands/modulefile.cpp
Command add_uninstall_command(CLI::App& app);   // commands/uninstall.cpp
Command add_plan_command(CLI::App& app);        // commands/plan.cpp
Command add_compare_command(CLI::App& app);     // commands/compare.cpp
Command add_opencv_command(CLI::App& app);      // commands/opencv.cpp
Command add_watch_command(CLI::App& app);       // commands/watch.cpp
Command add_fleet_command(CLI::App& app);       // commands/fleet.cpp

}  // namespace cudoctor::commands
