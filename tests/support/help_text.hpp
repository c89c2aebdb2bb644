#pragma once
// Reading cudoctor's own --help text in tests.
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace cudoctor::test {

/// The subcommands a --help text lists under "Subcommands:", up to the blank line that ends the
/// list (an "Examples:" section may follow, whose lines also start with two spaces).
inline std::vector<std::string> listed_subcommands(const std::string& help) {
    std::vector<std::string> names;
    const auto at = help.find("Subcommands:");
    if (at == std::string::npos) return names;
    std::istringstream in(help.substr(at));
    std::string line;
    std::getline(in, line);
    const std::regex row(R"(^  ([a-z][a-z0-9-]*)\s)");
    while (std::getline(in, line) && !line.empty()) {
        std::smatch m;
        if (std::regex_search(line, m, row)) names.push_back(m[1]);
    }
    return names;
}

}  // namespace cudoctor::test
