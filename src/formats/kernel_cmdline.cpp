#include "formats/kernel_cmdline.hpp"

#include "common/text.hpp"

namespace cudoctor::formats {
namespace {

bool is_cmdline_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool same_module(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const char x = a[i] == '-' ? '_' : a[i];
        const char y = b[i] == '-' ? '_' : b[i];
        if (x != y) return false;
    }
    return true;
}

}  // namespace

std::vector<std::string> parse_kernel_cmdline(std::string_view text) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_cmdline_space(text[i])) ++i;
        if (i >= text.size()) break;
        std::string token;
        bool quoted = false;
        for (; i < text.size() && (quoted || !is_cmdline_space(text[i])); ++i) {
            if (text[i] == '"') quoted = !quoted;
            else token += text[i];
        }
        out.push_back(std::move(token));
    }
    return out;
}

bool cmdline_blacklists(const std::vector<std::string>& tokens, std::string_view module) {
    static constexpr std::string_view kListParams[] = {"modprobe.blacklist", "module_blacklist", "rd.driver.blacklist", "rdblacklist",
                                                       "blacklist"};
    for (const auto& token : tokens) {
        if (token == "--") break;  // the rest goes to init, not to the kernel or modprobe
        const auto eq = token.find('=');
        if (eq == std::string::npos) continue;
        const std::string_view key(token.data(), eq);
        const std::string_view value = std::string_view(token).substr(eq + 1);
        for (const auto param : kListParams) {
            if (key != param) continue;
            for (const auto name : text::split(value, ','))
                if (same_module(name, module)) return true;
        }
        const auto dot = key.find('.');
        if (dot != std::string_view::npos && key.substr(dot + 1) == "modeset" && value == "0" && same_module(key.substr(0, dot), module))
            return true;
    }
    return false;
}

}  // namespace cudoctor::formats
