#include "formats/shell_wrapper.hpp"

#include "common/text.hpp"

namespace cudoctor::formats {

std::optional<std::string> wrapper_exec_target(std::string_view script) {
    if (!script.starts_with("#!")) return std::nullopt;
    for (auto line : text::lines(script)) {
        line = text::trim(line);
        if (!line.starts_with("exec") || line.size() < 6 || (line[4] != ' ' && line[4] != '\t')) continue;
        auto rest = text::trim(line.substr(5));
        if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) {
            const char quote = rest.front();
            const auto close = rest.find(quote, 1);
            if (close == std::string_view::npos) continue;
            rest = rest.substr(1, close - 1);
        } else {
            rest = rest.substr(0, rest.find_first_of(" \t;"));
        }
        if (rest.starts_with('/') && rest.find('$') == std::string_view::npos) return std::string(rest);
    }
    return std::nullopt;
}

}  // namespace cudoctor::formats
