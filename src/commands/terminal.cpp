#include "commands/terminal.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace cudoctor::commands {
namespace {

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

bool decide_color(ColorMode mode, int fd) {
    switch (mode) {
        case ColorMode::always: return true;
        case ColorMode::never: return false;
        case ColorMode::automatic: break;
    }
    return color_enabled(fd);
}

std::vector<std::string> color_environment(ColorMode mode) {
    switch (mode) {
        case ColorMode::always: return {"CLICOLOR_FORCE=1"};
        case ColorMode::never: return {"NO_COLOR=1"};
        case ColorMode::automatic: break;
    }
    return {};
}

}  // namespace cudoctor::commands
