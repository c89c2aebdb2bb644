// cudoctor: parse arguments, dispatch to the chosen command, map the result to an exit code.
#include <exception>
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands/command.hpp"

using cudoctor::ExitStatus;

int main(int argc, char** argv) {
    CLI::App app{"cudoctor — a doctor for the NVIDIA CUDA stack of this machine"};
    app.set_version_flag("--version", std::string("cudoctor ") + CUDOCTOR_VERSION);
    app.require_subcommand(0, 1);

    const std::vector<cudoctor::commands::Command> commands = {
        cudoctor::commands::add_check_command(app),
        cudoctor::commands::add_rules_command(app),
        cudoctor::commands::add_explain_command(app),
        cudoctor::commands::add_arch_command(app),
        cudoctor::commands::add_verify_command(app),
        cudoctor::commands::add_verify_installer_command(app),
        cudoctor::commands::add_list_command(app),
        cudoctor::commands::add_use_command(app),
        cudoctor::commands::add_init_command(app),
        cudoctor::commands::add_switch_command(app),
        cudoctor::commands::add_modulefile_command(app),
        cudoctor::commands::add_uninstall_command(app),
        cudoctor::commands::add_plan_command(app),
        cudoctor::commands::add_compare_command(app),
        cudoctor::commands::add_opencv_command(app),
        cudoctor::commands::add_watch_command(app),
        cudoctor::commands::add_fleet_command(app),
    };

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : static_cast<int>(ExitStatus::usage);
    }

    try {
        for (const auto& c : commands)
            if (app.got_subcommand(c.app)) return static_cast<int>(c.run());
        return static_cast<int>(commands.front().run());  // no subcommand: check
    } catch (const std::exception& e) {
        std::cerr << "cudoctor: internal error: " << e.what() << "\n";
        return static_cast<int>(ExitStatus::internal);
    }
}
