#include "toolkits/shell.hpp"

#include "common/text.hpp"

namespace cudoctor::toolkits {
namespace {

bool under(std::string_view entry, std::string_view dir) {
    while (entry.size() > 1 && entry.back() == '/') entry.remove_suffix(1);
    while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
    return entry == dir || (entry.size() > dir.size() && entry.starts_with(dir) && entry[dir.size()] == '/');
}

/// A word for fish: single quotes, with \ and ' escaped.
std::string fish_quote(std::string_view s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\\' || c == '\'') out += '\\';
        out += c;
    }
    return out + "'";
}

}  // namespace

Expected<Shell> parse_shell(std::string_view name) {
    auto base = name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
    if (base == "bash" || base == "sh" || base == "dash" || base == "ksh") return Shell::bash;
    if (base == "zsh") return Shell::zsh;
    if (base == "fish") return Shell::fish;
    return fail(Errc::usage, "unknown shell '" + text::printable(name) + "' (bash, zsh or fish)");
}

std::string rewrite_list(std::string_view list, const std::vector<std::string>& dirs, std::string_view first) {
    std::vector<std::string_view> kept;
    if (!first.empty()) kept.push_back(first);
    auto parts = text::split(list, ':');
    if (!list.empty() && list.back() == ':') parts.pop_back();
    for (auto p : parts) {
        bool drop = p == first;
        for (const auto& d : dirs) drop = drop || (!p.empty() && under(p, d));
        if (!drop && !list.empty()) kept.push_back(p);
    }
    std::string out;
    for (std::size_t i = 0; i < kept.size(); ++i) out += (i ? ":" : "") + std::string(kept[i]);
    return out;
}

std::string use_script(Shell shell, const UseRequest& r, const ShellEnv& env) {
    const std::string path = rewrite_list(env.path.value_or(""), r.toolkit_dirs, r.bin_dir);
    const std::string ld = rewrite_list(env.ld_library_path.value_or(""), r.toolkit_dirs, r.lib_dir);
    std::string out = "# cudoctor use: " + r.label + "\n";
    if (shell == Shell::fish) {
        out += "set -gx CUDA_HOME " + fish_quote(r.home) + "\n";
        if (env.cuda_path) out += "set -gx CUDA_PATH " + fish_quote(r.home) + "\n";
        out += "set -gx PATH";
        for (auto p : text::split(path, ':')) out += " " + fish_quote(p);
        out += "\n";
        if (ld.empty()) out += "set -e LD_LIBRARY_PATH\n";
        else {
            out += "set -gx LD_LIBRARY_PATH";
            for (auto p : text::split(ld, ':')) out += " " + fish_quote(p);
            out += "\n";
        }
        return out;
    }
    out += "export CUDA_HOME=" + text::shell_quote(r.home) + "\n";
    if (env.cuda_path) out += "export CUDA_PATH=" + text::shell_quote(r.home) + "\n";
    out += "export PATH=" + text::shell_quote(path) + "\n";
    if (ld.empty()) out += "unset LD_LIBRARY_PATH\n";
    else out += "export LD_LIBRARY_PATH=" + text::shell_quote(ld) + "\n";
    out += "hash -r 2>/dev/null || true\n";  // forget where nvcc was
    return out;
}

// Not clang-formatted: the shell function, one of its lines per source line.
// clang-format off
std::string init_script(Shell shell, std::string_view binary) {
    if (shell == Shell::fish) {
        const std::string bin = fish_quote(binary);
        return "# cudoctor init fish: add `" + std::string(binary) + " init fish | source` to ~/.config/fish/config.fish\n"
               "function cudoctor --description 'cudoctor; `cudoctor use VERSION` switches this shell'\n"
               "    if test (count $argv) -ge 1; and test \"$argv[1]\" = use\n"
               "        set -l __cudoctor_code (command " + bin + " use --shell fish $argv[2..-1]); or return $status\n"
               "        string join \\n -- $__cudoctor_code | source\n"
               "    else\n"
               "        command " + bin + " $argv\n"
               "    end\n"
               "end\n";
    }
    const std::string name = shell == Shell::zsh ? "zsh" : "bash";
    const std::string bin = text::shell_quote(binary);
    return "# cudoctor init " + name + ": add `eval \"$(" + std::string(binary) + " init " + name + ")\"` to ~/." + name + "rc\n"
           "cudoctor() {\n"
           "    if [ \"$1\" = use ]; then\n"
           "        shift\n"
           "        local __cudoctor_code\n"
           "        __cudoctor_code=\"$(command " + bin + " use --shell " + name + " \"$@\")\" || return $?\n"
           "        eval \"$__cudoctor_code\"\n"
           "    else\n"
           "        command " + bin + " \"$@\"\n"
           "    fi\n"
           "}\n";
    // clang-format on
}

}  // namespace cudoctor::toolkits
