#include "commands/terminal.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string_view>

namespace cudoctor::commands {
namespace {

std::atomic<bool> g_quiet{false};  // set once by main before any command runs

bool non_empty(const char* value) { return value != nullptr && *value != '\0'; }

}  // namespace

ColorMode parse_color_mode(std::string_view text) {
    if (text == "always") return ColorMode::always;
    if (text == "never") return ColorMode::never;
    return ColorMode::automatic;
}

bool color_policy(const char* no_color, const char* clicolor_force, const char* term, bool is_tty) {
    // https://no-color.org: any non-empty NO_COLOR disables colour, whatever else is set.
    if (non_empty(no_color)) return false;
    if (non_empty(clicolor_force) && std::string_view(clicolor_force) != "0") return true;
    if (term != nullptr && std::string_view(term) == "dumb") return false;
    return is_tty;
}

bool color_enabled(int fd) {
    return color_policy(std::getenv("NO_COLOR"), std::getenv("CLICOLOR_FORCE"), std::getenv("TERM"), ::isatty(fd) == 1);
}

void apply_color_mode(ColorMode mode) {
    switch (mode) {
        case ColorMode::always:
            ::unsetenv("NO_COLOR");
            ::setenv("CLICOLOR_FORCE", "1", 1);
            break;
        case ColorMode::never:
            ::unsetenv("CLICOLOR_FORCE");
            ::setenv("NO_COLOR", "1", 1);
            break;
        case ColorMode::automatic: break;
    }
}

void set_quiet(bool quiet) { g_quiet.store(quiet); }

bool quiet() { return g_quiet.load(); }

}  // namespace cudoctor::commands
