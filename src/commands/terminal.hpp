#pragma once
// The terminal conventions every command shares: when to colour (--color, NO_COLOR, a TTY).
// main decides once, from the global options, and hands the decision (with --quiet) to the
// command in its Output (commands/command.hpp); no command reads the environment for it.
#include <string>
#include <string_view>
#include <vector>

namespace cudoctor::commands {

/// The three values of the global --color option.
enum class ColorMode { automatic, always, never };

/// "auto" | "always" | "never" → the mode; anything else → automatic (CLI11 rejects it first).
[[nodiscard]] ColorMode parse_color_mode(std::string_view text);

/// The colour decision as a pure function, for tests. `no_color` and `clicolor_force` are the
/// values of NO_COLOR and CLICOLOR_FORCE (nullptr when unset), `term` the value of TERM.
/// Order: a non-empty NO_COLOR wins (no colour); then a CLICOLOR_FORCE other than "" or "0"
/// (colour); then TERM=dumb (no colour); then whether the stream is a terminal.
[[nodiscard]] bool color_policy(const char* no_color, const char* clicolor_force, const char* term, bool is_tty);

/// Should output written to file descriptor `fd` carry ANSI colours? color_policy over this
/// process's environment and isatty(fd). A closed or invalid fd counts as no terminal.
[[nodiscard]] bool color_enabled(int fd);

/// The --color decision for output written to `fd`: always → true, never → false, automatic →
/// color_enabled(fd). This process's environment is only read, never changed.
[[nodiscard]] bool decide_color(ColorMode mode, int fd);

/// The colour choice as environment for a command we launch ("NAME=value" each), since it is
/// never written into our own: never → NO_COLOR=1, always → CLICOLOR_FORCE=1, automatic →
/// nothing (the child decides for its own output, as we did).
[[nodiscard]] std::vector<std::string> color_environment(ColorMode mode);

}  // namespace cudoctor::commands
