// cudoctor: parse arguments, dispatch to a command, map the result to an exit code.
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands/check.hpp"
#include "commands/rules_cmd.hpp"

using cudoctor::ExitStatus;

int main(int argc, char** argv) {
    CLI::App app{"cudoctor — a doctor for the NVIDIA CUDA stack of this machine"};
    app.set_version_flag("--version", std::string("cudoctor ") + CUDOCTOR_VERSION);
    app.require_subcommand(0, 1);

    cudoctor::commands::CheckOptions check;
    auto add_common = [&](CLI::App* cmd) {
        cmd->add_option("--root", check.root, "probe a machine image (a folder laid out like /) instead of this machine");
        cmd->add_option("--kb", check.kb_dir, "read knowledge-base tables from DIR (newer than the built-in ones)");
        cmd->add_flag("--json", check.json, "print the snapshot as versioned JSON");
    };
    auto* check_cmd = app.add_subcommand("check", "inventory the CUDA stack: GPU, driver, toolkits, cuDNN, frameworks");
    add_common(check_cmd);
    check_cmd->add_option("--snapshot", check.snapshot_file, "render a saved snapshot (from check --json) instead of probing")
        ->excludes("--root");
    check_cmd->add_flag("--markdown", check.markdown, "print Markdown, ready to paste into a GitHub issue");
    check_cmd->add_flag("-v,--verbose", check.verbose, "show the evidence of every fact");
    check_cmd->add_option("--python", check.pythons, "also inspect this Python interpreter's packages (repeatable)");
    check_cmd->add_flag("--no-exec", check.no_exec, "never start a child process (not even nvcc --version)");
    check_cmd->add_option("--fail-on", check.fail_on, "exit 1 on findings of this severity or worse")
        ->check(CLI::IsMember({"error", "warning"}));

    std::optional<std::string> rule_id;
    bool rules_json = false;
    auto* rules_cmd = app.add_subcommand("rules", "list the rules check applies, or explain one");
    rules_cmd->add_option("id", rule_id, "a rule id: explain it");
    rules_cmd->add_flag("--json", rules_json, "print JSON");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : static_cast<int>(ExitStatus::usage);
    }

    try {
        if (app.got_subcommand(rules_cmd))
            return static_cast<int>(cudoctor::commands::run_rules(rule_id, rules_json, std::cout, std::cerr));
        if (app.got_subcommand(check_cmd) || app.get_subcommands().empty()) {
            const char* no_color = std::getenv("NO_COLOR");
            check.color = ::isatty(STDOUT_FILENO) && !(no_color && *no_color);
            return static_cast<int>(cudoctor::commands::run_check(check, std::cout, std::cerr));
        }
    } catch (const std::exception& e) {
        std::cerr << "cudoctor: internal error: " << e.what() << "\n";
        return static_cast<int>(ExitStatus::internal);
    }
    return static_cast<int>(ExitStatus::usage);
}
