#pragma once
// The commands of a finding's fix, read as the shell would read them, so a test can carry them
// out on a copy of a fixture machine: words (quotes and backslashes removed, `#` comments
// dropped), split into commands at `&&`, `||`, `;` and `|`. Only what fixes write is
// understood; anything else keeps its words and is the caller's to classify. The few sed
// scripts fixes use on start-up files are carried out by the real sed.
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace cudoctor::test {

struct ShellCommand {
    std::vector<std::string> words;
    bool piped_into_next = false;  ///< followed by `|`
};

/// Splits one line of shell into commands. Variables are expanded from `env` as the shell
/// would: $NAME, ${NAME}, ${NAME:+WORD} (WORD itself expanded), ${NAME:-WORD}; not inside single
/// quotes. nullopt for what this reader does not understand (an unclosed quote, `$(…)`, backquotes).
inline std::optional<std::vector<ShellCommand>> parse_shell_line(const std::string& line, const std::map<std::string, std::string>& env) {
    std::vector<ShellCommand> commands(1);
    std::string word;
    bool in_word = false;
    const auto end_word = [&] {
        if (in_word) commands.back().words.push_back(word);
        word.clear();
        in_word = false;
    };
    const auto end_command = [&](bool piped) {
        end_word();
        commands.back().piped_into_next = piped;
        commands.emplace_back();
    };
    // Expands a parameter starting at line[i] == '$'; returns false for $( and other forms.
    std::size_t i = 0;
    const auto expand = [&](auto& self, const std::string& text, std::size_t& at, std::string& out) -> bool {
        ++at;  // past '$'
        if (at >= text.size()) {
            out += '$';
            return true;
        }
        if (text[at] == '(') return false;
        if (text[at] == '{') {
            const auto close = text.find('}', at);
            if (close == std::string::npos) return false;
            const std::string inner = text.substr(at + 1, close - at - 1);
            at = close + 1;
            const auto op = inner.find(':');
            const std::string name = inner.substr(0, op);
            const auto it = env.find(name);
            const bool set = it != env.end() && !it->second.empty();
            if (op == std::string::npos) {
                if (it != env.end()) out += it->second;
                return true;
            }
            if (op + 1 >= inner.size()) return false;
            const char kind = inner[op + 1];
            const std::string alt = inner.substr(op + 2);
            std::string alt_expanded;
            for (std::size_t k = 0; k < alt.size();) {
                if (alt[k] == '$') {
                    if (!self(self, alt, k, alt_expanded)) return false;
                } else {
                    alt_expanded += alt[k++];
                }
            }
            if (kind == '+') out += set ? alt_expanded : "";
            else if (kind == '-') out += set ? it->second : alt_expanded;
            else return false;
            return true;
        }
        std::size_t end = at;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
        if (end == at) {
            out += '$';
            return true;
        }
        if (const auto it = env.find(text.substr(at, end - at)); it != env.end()) out += it->second;
        at = end;
        return true;
    };
    while (i < line.size()) {
        const char c = line[i];
        if (c == '\'') {
            const auto close = line.find('\'', i + 1);
            if (close == std::string::npos) return std::nullopt;
            word += line.substr(i + 1, close - i - 1);
            in_word = true;
            i = close + 1;
        } else if (c == '"') {
            ++i;
            in_word = true;
            for (;;) {
                if (i >= line.size()) return std::nullopt;
                if (line[i] == '"') {
                    ++i;
                    break;
                }
                if (line[i] == '`') return std::nullopt;
                if (line[i] == '\\' && i + 1 < line.size() && std::string("$`\"\\").find(line[i + 1]) != std::string::npos) {
                    word += line[i + 1];
                    i += 2;
                } else if (line[i] == '$') {
                    if (!expand(expand, line, i, word)) return std::nullopt;
                } else {
                    word += line[i++];
                }
            }
        } else if (c == '\\' && i + 1 < line.size()) {
            word += line[i + 1];
            in_word = true;
            i += 2;
        } else if (c == '$') {
            if (!expand(expand, line, i, word)) return std::nullopt;
            in_word = true;
        } else if (c == '`') {
            return std::nullopt;
        } else if (c == '#' && !in_word) {
            break;
        } else if (c == ' ' || c == '\t') {
            end_word();
            ++i;
        } else if (c == ';') {
            end_command(false);
            ++i;
        } else if (c == '&' && i + 1 < line.size() && line[i + 1] == '&') {
            end_command(false);
            i += 2;
        } else if (c == '|' && i + 1 < line.size() && line[i + 1] == '|') {
            end_command(false);
            i += 2;
        } else if (c == '|') {
            end_command(true);
            ++i;
        } else {
            word += c;
            in_word = true;
            ++i;
        }
    }
    end_word();
    std::vector<ShellCommand> out;
    for (auto& cmd : commands)
        if (!cmd.words.empty()) out.push_back(std::move(cmd));
    return out;
}

/// printf's FORMAT with no arguments: the escapes \n, \t, \\ and %%.
inline std::string printf_text(const std::string& format) {
    std::string out;
    for (std::size_t i = 0; i < format.size(); ++i) {
        if (format[i] == '\\' && i + 1 < format.size()) {
            const char e = format[++i];
            out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        } else if (format[i] == '%' && i + 1 < format.size() && format[i + 1] == '%') {
            out += '%';
            ++i;
        } else {
            out += format[i];
        }
    }
    return out;
}

/// The sed scripts fixes write to edit one line of a start-up file, and only those: `Nc TEXT`
/// (GNU sed's one-line change), `Ns/^/# /` (comment out) and `Nd` (delete).
inline bool fix_sed_script(const std::string& script) {
    static const std::regex form(R"(^[1-9][0-9]*(c [^\\\n]+|s/\^/# /|d)$)");
    return std::regex_match(script, form);
}

/// Runs the real `/usr/bin/sed -i SCRIPT FILE` (no shell: the script is one argument, as the
/// shell hands it over after removing its quotes). True when sed exits 0.
inline bool run_sed_in_place(const std::string& script, const std::string& file) {
    const pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) {
        const char* argv[] = {"sed", "-i", script.c_str(), file.c_str(), nullptr};
        ::execv("/usr/bin/sed", const_cast<char* const*>(argv));
        ::_exit(127);
    }
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace cudoctor::test
