#pragma once
// How main.cpp meets a subcommand: each commands/<name>.cpp adds its subcommand and options to
// the CLI11 app and returns what to run when the user chose it. main decides the output once,
// from the global options, and hands it to the command that runs.
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>

#include <CLI/CLI.hpp>

#include "commands/terminal.hpp"
#include "common/exit_status.hpp"

namespace cudoctor::commands {

/// Where a command writes and how: decided once by main (-q/--quiet, --color, the terminals).
struct Output {
    std::ostream& out;                            ///< results (standard output)
    std::ostream& err;                            ///< errors, warnings and progress (standard error)
    bool quiet = false;                           ///< -q/--quiet: the one-line verdict (and errors) only
    bool color = false;                           ///< ANSI colours on `out`: --color, else NO_COLOR/CLICOLOR_FORCE/TERM and a terminal
    bool err_is_terminal = false;                 ///< `err` is a terminal: a progress bar or a live status line may be drawn
    ColorMode color_mode = ColorMode::automatic;  ///< the --color choice itself, for a command we launch (watch)
};

struct Command {
    CLI::App* app = nullptr;                       ///< the subcommand, for "was it chosen?"
    std::function<ExitStatus(const Output&)> run;  ///< called after a successful parse
};

/// Every command, by its name, with what adds it to the tree (commands/command_table.cpp); the
/// first is the one that runs when none is named. The docs commands are not here (docs.hpp).
struct CommandEntry {
    std::string_view name;
    Command (*add)(CLI::App&);
};
std::span<const CommandEntry> command_table();
/// The one command whose tree can parse `args` (argv without the program) as the whole tree
/// would: the first argument that is a command's name, else the default (the table's first).
/// nullopt (build the whole tree) when help is asked for or a docs command is named (the man
/// page, completion and the examples' check read the whole tree). The caller still checks
/// that the parse chose that command (its name may be an option's value) and otherwise
/// parses again with the whole tree.
std::optional<CommandEntry> only_command(std::span<const char* const> args);

Command add_check_command(CLI::App& app);
Command add_rules_command(CLI::App& app);
Command add_explain_command(CLI::App& app);           // commands/explain.cpp
Command add_arch_command(CLI::App& app);              // commands/arch.cpp
Command add_kernels_command(CLI::App& app);           // commands/kernels.cpp
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
Command add_inventory_command(CLI::App& app);   // commands/inventory.cpp
Command add_opencv_command(CLI::App& app);      // commands/opencv.cpp
Command add_watch_command(CLI::App& app);       // commands/watch.cpp
Command add_fleet_command(CLI::App& app);       // commands/fleet.cpp

}  // namespace cudoctor::commands
