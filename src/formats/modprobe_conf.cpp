#include "formats/modprobe_conf.hpp"

#include "common/text.hpp"

namespace cudoctor::formats {
namespace {

bool is_word_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string module_name(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        if (c == '-') c = '_';
    return out;
}

/// Cuts the first whitespace-separated word off `rest`.
std::string_view next_word(std::string_view& rest) {
    std::size_t i = 0;
    while (i < rest.size() && is_word_space(rest[i])) ++i;
    const std::size_t start = i;
    while (i < rest.size() && !is_word_space(rest[i])) ++i;
    const auto word = rest.substr(start, i - start);
    rest = rest.substr(i);
    return word;
}

void apply_line(std::string_view line, ModprobeConf& conf) {
    std::string_view rest = line;
    const auto command = next_word(rest);
    if (command.empty() || command[0] == '#') return;
    const auto first = next_word(rest);
    if (first.empty()) return;
    if (command == "blacklist") {
        conf.blacklisted.push_back(module_name(first));
    } else if (command == "options") {
        conf.options.emplace_back(module_name(first), std::string(text::trim(rest)));
    } else if (command == "alias") {
        const auto target = next_word(rest);
        if (!target.empty()) conf.aliases.emplace_back(module_name(first), module_name(target));
    } else if (command == "install") {
        const auto what = text::trim(rest);
        if (!what.empty()) conf.installs.emplace_back(module_name(first), std::string(what));
    }
}

}  // namespace

ModprobeConf parse_modprobe_conf(std::string_view text) {
    ModprobeConf conf;
    std::string logical;  // the current line with its backslash continuations joined
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        auto line = text.substr(pos, end - pos);
        pos = end + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty() && line.back() == '\\') {
            logical.append(line.substr(0, line.size() - 1));
            continue;
        }
        logical.append(line);
        apply_line(logical, conf);
        logical.clear();
    }
    if (!logical.empty()) apply_line(logical, conf);
    return conf;
}

}  // namespace cudoctor::formats
