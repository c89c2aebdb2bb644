#pragma once
// The terminal conventions every command shares: when to colour (--color, NO_COLOR, a TTY) and
// whether to say only the verdict (--quiet). main sets them once from the global options; a
// command asks color_enabled(STDOUT_FILENO) / quiet() instead of reading the environment itself.
#include <string_view>

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

/// Applies --color to this process's environment so child processes (and color_enabled) agree:
/// always → CLICOLOR_FORCE=1 and NO_COLOR removed; never → NO_COLOR=1 and CLICOLOR_FORCE removed;
/// automatic → the environment is left as the user set it.
void apply_color_mode(ColorMode mode);

/// Sets the global --quiet flag (main calls it once after parsing).
void set_quiet(bool quiet);

/// True when the user asked for the verdict line only (-q/--quiet): a command then prints its
/// one-line verdict (and errors) and nothing else. The exit status is the same either way.
[[nodiscard]] bool quiet();

}  // namespace cudoctor::commands
