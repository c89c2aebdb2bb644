#pragma once
// The manual and the shell completions, generated from the same CLI11 tree as --help so they
// never drift: the hidden `cudoctor __generate man|bash|zsh|fish|examples` (run by the build), and
// `cudoctor __complete toolkits` (run by the completion scripts at Tab time).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands/command.hpp"

namespace cudoctor::commands {

/// What a value of an option or positional completes to.
enum class ValueKind { none, choice, toolkit, path, text };

/// One option or positional argument as the docs and completions see it.
struct OptionDoc {
    std::vector<std::string> names;  ///< "-v", "--verbose"; empty for a positional
    std::string value_name;          ///< "TEXT", "DIR", "VERSION"; "" for a flag
    ValueKind kind = ValueKind::none;
    std::vector<std::string> choices;  ///< for ValueKind::choice ("error", "warning")
    std::string help;
    bool required = false;
    bool repeatable = false;
    std::string default_value;  ///< "" when none is shown
};

/// One visible subcommand.
struct CommandDoc {
    std::string name;
    std::string help;
    std::vector<OptionDoc> options;      ///< -h/--help left out
    std::vector<OptionDoc> positionals;  ///< in order
    std::vector<std::string> examples;   ///< footer lines that start with "cudoctor " (the command line only)
    std::string footer;                  ///< the whole footer text, as --help prints it
    std::vector<CommandDoc> children;    ///< its own subcommands (`opencv cmake`), one level deep
};

/// The whole command line interface.
struct CliDoc {
    std::string name;  ///< "cudoctor"
    std::string description;
    std::vector<OptionDoc> global_options;  ///< -h/--help included
    std::vector<CommandDoc> commands;       ///< visible subcommands, in registration order
};

/// Reads the CLI11 tree: hidden subcommands and options (empty group) are left out; options of
/// option groups count as their subcommand's. A value's kind: a validator listing choices
/// ("{a,b}") → choice; the first positional of use/switch/uninstall/modulefile → toolkit; an
/// option named like --root/--kb/--snapshot/--output/--python/--log, or any other positional
/// → path; otherwise text.
[[nodiscard]] CliDoc describe_cli(const CLI::App& app);

/// The example command lines of a footer: each line that, trimmed and without a leading "sudo ",
/// starts with "cudoctor", cut before a "  # comment" or a shell operator (|, >, >>, &&, 2>).
[[nodiscard]] std::vector<std::string> examples_in(const std::string& footer);

/// The man page cudoctor(1) in roff (man macros): NAME, SYNOPSIS, DESCRIPTION, GLOBAL OPTIONS,
/// COMMANDS (one subsection per subcommand), EXAMPLES, EXIT STATUS, ENVIRONMENT, FILES, SEE ALSO.
/// `date` goes into the title line. Non-ASCII text is written as groff \[uXXXX] escapes.
[[nodiscard]] std::string man_page(const CliDoc& doc, const std::string& version, const std::string& date);

/// The environment variables documented in the man page, for the test that no CUDOCTOR_*
/// variable read anywhere in src/ goes undocumented.
[[nodiscard]] std::vector<std::string> documented_environment();

/// A bash completion script defining _cudoctor and `complete -F _cudoctor cudoctor`: needs no
/// bash-completion package; toolkit versions come from `cudoctor __complete toolkits`.
[[nodiscard]] std::string bash_completion(const CliDoc& doc);

/// A zsh completion function (#compdef cudoctor) for $fpath, using _arguments.
[[nodiscard]] std::string zsh_completion(const CliDoc& doc);

/// A fish completion file for vendor_completions.d.
[[nodiscard]] std::string fish_completion(const CliDoc& doc);

/// Parses every example of every visible subcommand against `app` (without running anything) and
/// returns one line per example CLI11 rejects: "cudoctor use 12.4: The following argument was
/// not expected: 12.4". Subcommands whose help is still "(not yet available)" are skipped.
/// Leaves `app` cleared.
[[nodiscard]] std::vector<std::string> broken_examples(CLI::App& app);

/// Gives every visible subcommand without a footer its "Examples:" footer (the table in
/// docs_examples.cpp), so --help, the man page and the examples test share one text. A footer a
/// command set itself is kept; when it holds no example, the examples are appended to it.
void add_default_examples(CLI::App& app);

/// Adds the hidden subcommands `__generate` and `__complete`. Register it after every other
/// subcommand: the generators read the tree `app` holds when they run.
[[nodiscard]] std::vector<Command> add_docs_commands(CLI::App& app);

}  // namespace cudoctor::commands
