// cudoctor: parse arguments, dispatch to the chosen command, map the result to an exit code.
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands/build_info.hpp"
#include "commands/command.hpp"
#include "commands/docs.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "commands/terminal.hpp"
#include "kb/load_table.hpp"

using cudoctor::ExitStatus;
namespace commands = cudoctor::commands;

namespace {

/// What the top level's own options set.
struct Globals {
    bool show_version = false;
    commands::MachineOptions version_machine;  // only its --kb: the tables --version reports
    std::string color = "auto";
    bool quiet = false;
};

/// The top level's options and the commands: `only` one of them, or every one (nullopt).
std::vector<commands::Command> build_tree(CLI::App& app, Globals& g, const std::optional<commands::CommandEntry>& only) {
    // --version is a plain flag answered after the parse, so that it sees --kb wherever it stands
    // (a version callback would run before a later --kb is read). This --kb is only the
    // top level's: a subcommand's own --kb is that subcommand's (`cudoctor check --kb DIR`).
    auto* version = app.add_flag("--version", g.show_version,
                                 "print the version, git revision and the knowledge-base tables compiled in (with --kb DIR: the "
                                 "tables DIR overrides)");
    commands::add_machine_options(&app, g.version_machine, {.root = false, .kb = true}).kb->needs(version);
    app.require_subcommand(0, 1);
    // Global options are accepted after the subcommand too: `cudoctor check --color=never`.
    app.fallthrough();
    app.add_option("--color", g.color, "colour the output: auto (on a terminal, unless NO_COLOR is set), always or never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    app.add_flag("-q,--quiet", g.quiet,
                 "print only the verdict line (and errors); the exit status is the same. Output for a program is kept whole: "
                 "--json, --markdown, --format prometheus, plan --format script, and the code use, init and modulefile print");
    std::vector<commands::Command> all;
    if (only) {
        all.push_back(only->add(app));
    } else {
        for (const auto& e : commands::command_table()) all.push_back(e.add(app));
    }
    commands::add_default_examples(app);
    if (!only)
        for (auto& c : commands::add_docs_commands(app)) all.push_back(std::move(c));  // last: they read the whole tree
    return all;
}

}  // namespace

int main(int argc, char** argv) {
    // Tables: --kb DIR, then $CUDOCTOR_KB, then /etc/cudoctor/kb, then the compiled-in copy.
    cudoctor::kb::set_kb_search(cudoctor::kb::kb_search_from_environment());
    // Building the tree of every command was 6 % of a check's time: a run builds only the command
    // its arguments name, and the whole tree where that parse is not the whole tree's (the
    // command not chosen after all, an argument it refuses, help).
    const auto only = commands::only_command({argv + 1, static_cast<std::size_t>(argc - 1)});
    constexpr const char* kAbout = "cudoctor — a doctor for the NVIDIA CUDA stack of this machine";
    auto app = std::make_unique<CLI::App>(kAbout, "cudoctor");
    Globals globals;
    std::vector<commands::Command> all = build_tree(*app, globals, only);
    bool parsed = false;
    if (only) {
        try {
            app->parse(argc, argv);
            const bool named = std::any_of(argv + 1, argv + argc, [&](const char* a) { return a == only->name; });
            parsed = !named || app->got_subcommand(all.front().app);
        } catch (const CLI::ParseError&) {
            parsed = false;
        }
    }
    if (!parsed) {
        app = std::make_unique<CLI::App>(kAbout, "cudoctor");
        globals = Globals{};
        all = build_tree(*app, globals, std::nullopt);
        try {
            app->parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            // --help and --version are ParseErrors too (exit 0). A real one, with --json asked for,
            // is the {"error": …} object every command prints, not CLI11's text.
            const bool wants_json = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "--json"; });
            if (e.get_exit_code() == 0 || !wants_json) return app->exit(e) == 0 ? 0 : static_cast<int>(ExitStatus::usage);
            std::string command = "cudoctor";
            for (int i = 1; i < argc && command == "cudoctor"; ++i)
                for (const auto* sub : app->get_subcommands([](CLI::App*) { return true; }))
                    if (sub->get_name() == argv[i]) command = sub->get_name();
            return static_cast<int>(
                commands::report_error(cudoctor::Error{cudoctor::Errc::usage, e.what()}, true, command, std::cout, std::cerr));
        }
    }
    const bool show_version = globals.show_version;
    const auto& version_machine = globals.version_machine;
    const auto& color = globals.color;
    const bool quiet = globals.quiet;
    if (show_version) {
        // std::endl after the text: the blank last line CLI11's version flag printed, kept as it was.
        std::cout << commands::version_text(commands::build_info(), cudoctor::kb::embedded_tables(), version_machine.kb_dir) << std::endl;
        return 0;
    }
    // Decided once, here, and handed to the command: no command reads a global for it.
    const auto color_mode = commands::parse_color_mode(color);
    const commands::Output output{
        std::cout, std::cerr, quiet, commands::decide_color(color_mode, STDOUT_FILENO), ::isatty(STDERR_FILENO) == 1, color_mode};

    try {
        for (const auto& c : all)
            if (app->got_subcommand(c.app)) return static_cast<int>(c.run(output));
        return static_cast<int>(all.front().run(output));  // no subcommand: check
    } catch (const std::exception& e) {
        std::cerr << "cudoctor: internal error: " << e.what() << "\n";
        return static_cast<int>(ExitStatus::internal);
    }
}
