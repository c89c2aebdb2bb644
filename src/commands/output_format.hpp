#pragma once
// `--format` as check, fleet and watch report share it: one registration, and one way the
// choice becomes the --json / --markdown flags each command had before --format (they still
// work, and exclude --format).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cudoctor::commands {

/// Registers `--format` on `cmd`, limited to `choices`; `format` keeps its default ("text").
CLI::Option* add_format_option(CLI::App* cmd, std::string& format, const std::vector<std::string>& choices, const std::string& help);

/// Sets the flag `format` names ("json", "markdown", "prometheus"); "text" sets none. Flags
/// already set (--json) stay set.
void apply_format(const std::string& format, bool& json, bool& markdown, bool& prometheus);

}  // namespace cudoctor::commands
