// Shell completion scripts for bash, zsh and fish, written from the CLI11 tree (describe_cli).
// Toolkit versions are asked at Tab time from `cudoctor __complete toolkits [--root DIR]`.
#include <fmt/format.h>

#include "commands/docs.hpp"
#include "common/text.hpp"
#include "report/style.hpp"

namespace cudoctor::commands {
namespace {

std::vector<std::string> all_names(const std::vector<OptionDoc>& options) {
    std::vector<std::string> out;
    for (const auto& o : options)
        for (const auto& n : o.names) out.push_back(n);
    return out;
}

/// Only the first sentence of a help text, without a trailing period: what a completion menu shows.
std::string short_help(const std::string& help) {
    std::string_view h = help;
    if (auto at = h.find(". "); at != std::string_view::npos) h = h.substr(0, at);
    if (h.ends_with('.')) h.remove_suffix(1);
    return std::string(text::trim(h));
}

// ---- bash -------------------------------------------------------------------------------------

/// `case` arms for the value of the option before the cursor: choices, files or nothing.
void bash_value_arms(std::string& out, const std::string& command, const std::vector<OptionDoc>& options) {
    for (const auto& o : options) {
        if (o.value_name.empty() || o.names.empty()) continue;
        std::string pattern;
        for (const auto& n : o.names) pattern += (pattern.empty() ? "" : "|") + command + ":" + n;
        std::string action;
        if (o.kind == ValueKind::choice) action = fmt::format("_cudoctor_reply {}", text::shell_quote(report::join(o.choices, " ")));
        else if (o.kind == ValueKind::path) action = "_cudoctor_files";
        else action = "COMPREPLY=()";
        out += fmt::format("        {}) {}; return ;;\n", pattern, action);
    }
}

std::string bash_positional_action(const CommandDoc& c) {
    if (c.positionals.empty()) return "COMPREPLY=()";
    const auto& p = c.positionals.front();
    switch (p.kind) {
        case ValueKind::toolkit: return "_cudoctor_reply \"$(_cudoctor_run __complete toolkits \"${root[@]}\")\"";
        case ValueKind::choice: return fmt::format("_cudoctor_reply {}", text::shell_quote(report::join(p.choices, " ")));
        case ValueKind::path: return "_cudoctor_files";
        default: return "_cudoctor_files";  // free text: files are the likeliest (logs, binaries, folders)
    }
}

// ---- zsh --------------------------------------------------------------------------------------

/// Text inside a zsh single-quoted _arguments spec's [description]: ' [ ] \ escaped.
std::string zsh_desc(const std::string& s) {
    std::string out;
    for (char c : short_help(s)) {
        if (c == '\'') out += "'\\''";
        else if (c == '[' || c == ']' || c == '\\') out += std::string("\\") + c;
        else out += c;
    }
    return out;
}

/// A zsh single-quoted word.
std::string zsh_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string zsh_action(const OptionDoc& o) {
    switch (o.kind) {
        case ValueKind::choice: return "(" + report::join(o.choices, " ") + ")";
        case ValueKind::toolkit: return "_cudoctor_toolkits";
        case ValueKind::path: return "_files";
        default: return " ";
    }
}

std::string zsh_specs(const std::vector<OptionDoc>& options, const std::vector<OptionDoc>& positionals) {
    std::string out;
    for (const auto& o : options) {
        const std::string desc = "[" + zsh_desc(o.help) + "]";
        const std::string value = o.value_name.empty() ? "" : fmt::format(":{}:{}", text::to_lower(o.value_name), zsh_action(o));
        const std::string star = o.repeatable ? "*" : "";
        const std::string eq = o.value_name.empty() ? "" : "=";
        if (o.names.size() == 1) {
            out += fmt::format("    '{}{}{}{}{}'\n", star, o.names[0], eq, desc, value);
        } else {
            const std::string group = o.repeatable ? "*" : "(" + report::join(o.names, " ") + ")";
            out += fmt::format("    '{}'{{{}}}'{}{}{}'\n", group, report::join(o.names, ","), eq, desc, value);
        }
    }
    int index = 1;
    for (const auto& p : positionals) {
        const std::string pos = p.repeatable ? "*" : std::to_string(index++);
        out += fmt::format("    '{}:{}:{}'\n", pos, text::to_lower(p.value_name), zsh_action(p));
    }
    return out;
}

// ---- fish -------------------------------------------------------------------------------------

std::string fish_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'' || c == '\\') out += '\\';
        out += c;
    }
    return out + "'";
}

std::string fish_option(const OptionDoc& o, const std::string& condition) {
    std::string line = "complete -c cudoctor";
    if (!condition.empty()) line += " -n " + fish_quote(condition);
    for (const auto& n : o.names) line += n.starts_with("--") ? " -l " + n.substr(2) : " -s " + n.substr(1);
    if (o.kind == ValueKind::choice) line += " -x -a " + fish_quote(report::join(o.choices, " "));
    else if (o.kind == ValueKind::path) line += " -r -F";
    else if (!o.value_name.empty()) line += " -x";
    return line + " -d " + fish_quote(short_help(o.help)) + "\n";
}

/// The options and first positional of one command, under `condition`.
void fish_command(std::string& out, const std::string& program, const CommandDoc& c, const std::string& condition) {
    for (const auto& o : c.options) out += fish_option(o, condition);
    if (c.positionals.empty() || !c.children.empty()) return;
    const auto& p = c.positionals.front();
    if (p.kind == ValueKind::toolkit)
        out += fmt::format("complete -c {} -n {} -a '(__cudoctor_toolkits)'\n", program, fish_quote(condition));
    else if (p.kind == ValueKind::choice)
        out += fmt::format("complete -c {} -n {} -a {}\n", program, fish_quote(condition), fish_quote(report::join(p.choices, " ")));
    else out += fmt::format("complete -c {} -n {} -F\n", program, fish_quote(condition));
}

}  // namespace

std::string bash_completion(const CliDoc& doc) {
    std::vector<std::string> commands, nested;
    for (const auto& c : doc.commands) {
        commands.push_back(c.name);
        for (const auto& child : c.children) nested.push_back(c.name + "/" + child.name);
    }
    const std::string globals = report::join(all_names(doc.global_options), " ");
    // Every command as bash sees it: "check", and "opencv/cmake" for a subcommand's own.
    std::vector<std::pair<std::string, const CommandDoc*>> keyed;
    for (const auto& c : doc.commands) {
        keyed.emplace_back(c.name, &c);
        for (const auto& child : c.children) keyed.emplace_back(c.name + "/" + child.name, &child);
    }

    std::string out = fmt::format(R"SH(# bash completion for {0}. Generated by `{0} __generate bash` from the same CLI tree as --help.
# Needs no bash-completion package: source it, or install it as completions/{0}.

# Runs the cudoctor being completed (a path as typed, else the command, never a shell function).
_cudoctor_run() {{
    if [[ ${{COMP_WORDS[0]}} == */* ]]; then "${{COMP_WORDS[0]}}" "$@" 2>/dev/null
    else command "${{COMP_WORDS[0]}}" "$@" 2>/dev/null; fi
}}

_cudoctor_reply() {{
    COMPREPLY=($(compgen -W "$1" -- "$cur"))
}}

_cudoctor_files() {{
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
}}

_cudoctor() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=""
    ((COMP_CWORD > 0)) && prev=${{COMP_WORDS[COMP_CWORD-1]}}
    # "--color=al": bash splits at '=' (COMP_WORDBREAKS).
    if [[ $cur == "=" ]]; then cur=""; prev=${{COMP_WORDS[COMP_CWORD-1]}}
    elif [[ $prev == "=" ]]; then prev=${{COMP_WORDS[COMP_CWORD-2]}}; fi
    local cmd="" i
    local -a root=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${{COMP_WORDS[i]}} in
            --root) if [[ ${{COMP_WORDS[i+1]}} == "=" ]]; then root=(--root "${{COMP_WORDS[i+2]}}")
                    else root=(--root "${{COMP_WORDS[i+1]}}"); fi ;;
        esac
        if [[ -z $cmd ]]; then
            case ${{COMP_WORDS[i]}} in
                {1}) cmd=${{COMP_WORDS[i]}} ;;
            esac
        elif [[ $cmd != */* ]]; then
            case $cmd/${{COMP_WORDS[i]}} in
                {2}) cmd=$cmd/${{COMP_WORDS[i]}} ;;
            esac
        fi
    done

    case $cmd:$prev in
)SH",
                                  doc.name, report::join(commands, "|"), nested.empty() ? "-/-" : report::join(nested, "|"));
    for (const auto& [key, c] : keyed) bash_value_arms(out, key, c->options);
    bash_value_arms(out, "*", doc.global_options);
    out += "    esac\n\n";
    out += "    if [[ $cur == -* ]]; then\n        case $cmd in\n";
    for (const auto& [key, c] : keyed)
        out += fmt::format("            {}) _cudoctor_reply {} ;;\n", key,
                           text::shell_quote(report::join(all_names(c->options), " ") + " " + globals));
    out += fmt::format("            *) _cudoctor_reply {} ;;\n        esac\n        return\n    fi\n\n", text::shell_quote(globals));
    out += "    case $cmd in\n";
    out += fmt::format("        \"\") _cudoctor_reply {} ;;\n", text::shell_quote(report::join(commands, " ")));
    for (const auto& [key, c] : keyed) {
        if (c->children.empty()) {
            out += fmt::format("        {}) {} ;;\n", key, bash_positional_action(*c));
            continue;
        }
        std::vector<std::string> names;
        for (const auto& child : c->children) names.push_back(child.name);
        out += fmt::format("        {}) _cudoctor_reply {} ;;\n", key, text::shell_quote(report::join(names, " ")));
    }
    out += "    esac\n}\n\ncomplete -F _cudoctor " + doc.name + "\n";
    return out;
}

/// `case ${words[1]} in …` over `commands`: _arguments for a leaf; for a command with its own
/// subcommands, their names at the first position, else the words shifted and one level down.
static void zsh_cases(std::string& out, const std::vector<CommandDoc>& commands, const std::string& indent) {
    out += indent + "case ${words[1]} in\n";
    for (const auto& c : commands) {
        out += indent + "    " + c.name + ")\n";
        const std::string in = indent + "        ";
        if (c.children.empty()) {
            out += in + "_arguments $global_opts \\\n";
            const std::string specs = zsh_specs(c.options, c.positionals);  // lines() views into it
            for (auto line : text::lines(specs)) out += in + "    " + std::string(text::trim(line)) + " \\\n";
            out += in + "    && return\n";
        } else {
            out += in + "if (( CURRENT == 2 )); then\n" + in + "    local -a subcommands=(\n";
            for (const auto& child : c.children) out += in + "        " + zsh_quote(child.name + ":" + short_help(child.help)) + "\n";
            out += in + "    )\n" + in + "    _describe -t commands '" + c.name + " command' subcommands\n" + in + "else\n";
            out += in + "    shift words\n" + in + "    (( CURRENT-- ))\n";
            zsh_cases(out, c.children, in + "    ");
            out += in + "fi\n";
        }
        out += in + ";;\n";
    }
    out += indent + "esac\n";
}

std::string zsh_completion(const CliDoc& doc) {
    std::string out = fmt::format(R"SH(#compdef {0}
# zsh completion for {0}. Generated by `{0} __generate zsh` from the same CLI tree as --help.

_cudoctor_toolkits() {{
    local -a versions root
    local i
    for (( i = 1; i < CURRENT; i++ )); do
        [[ ${{words[i]}} == --root ]] && root=(--root "${{words[i+1]}}")
        [[ ${{words[i]}} == --root=* ]] && root=(--root "${{words[i]#--root=}}")
    done
    versions=(${{(f)"$(command {0} __complete toolkits $root 2>/dev/null)"}})
    _describe -t toolkits 'CUDA toolkit' versions
}}

_cudoctor() {{
    local curcontext="$curcontext" state line
    typeset -A opt_args
    local -a global_opts=(
{1}    )
    _arguments -C $global_opts '1: :->command' '*:: :->args'
    case $state in
        command)
            local -a commands=(
)SH",
                                  doc.name, zsh_specs(doc.global_options, {}));
    for (const auto& c : doc.commands) out += "                " + zsh_quote(c.name + ":" + short_help(c.help)) + "\n";
    out += "            )\n            _describe -t commands 'cudoctor command' commands\n            ;;\n";
    out += "        args)\n";
    zsh_cases(out, doc.commands, "            ");
    out += "            ;;\n    esac\n}\n\n_cudoctor \"$@\"\n";
    return out;
}

std::string fish_completion(const CliDoc& doc) {
    std::vector<std::string> commands;
    for (const auto& c : doc.commands) commands.push_back(c.name);
    std::string out = fmt::format(R"SH(# fish completion for {0}. Generated by `{0} __generate fish` from the same CLI tree as --help.

function __cudoctor_toolkits
    set -l tokens (commandline -opc)
    set -l root
    for i in (seq (count $tokens))
        if test "$tokens[$i]" = --root; and test $i -lt (count $tokens)
            set root --root $tokens[(math $i + 1)]
        else if string match -q -- '--root=*' $tokens[$i]
            set root --root (string replace -- '--root=' '' $tokens[$i])
        end
    end
    command {0} __complete toolkits $root 2>/dev/null
end

complete -c {0} -f
)SH",
                                  doc.name);
    const std::string none_yet = "not __fish_seen_subcommand_from " + report::join(commands, " ");
    for (const auto& c : doc.commands)
        out += fmt::format("complete -c {} -n {} -a {} -d {}\n", doc.name, fish_quote(none_yet), c.name, fish_quote(short_help(c.help)));
    for (const auto& o : doc.global_options) out += fish_option(o, "");
    for (const auto& c : doc.commands) {
        const std::string in = "__fish_seen_subcommand_from " + c.name;
        fish_command(out, doc.name, c, in);
        if (c.children.empty()) continue;
        std::vector<std::string> names;
        for (const auto& child : c.children) names.push_back(child.name);
        for (const auto& child : c.children) {
            out += fmt::format("complete -c {} -n {} -a {} -d {}\n", doc.name,
                               fish_quote(in + "; and not __fish_seen_subcommand_from " + report::join(names, " ")), child.name,
                               fish_quote(short_help(child.help)));
            fish_command(out, doc.name, child, in + "; and __fish_seen_subcommand_from " + child.name);
        }
    }
    return out;
}

}  // namespace cudoctor::commands
