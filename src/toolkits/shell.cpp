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

// What the first `use` saves, exported so the next cudoctor process and child shells see it.
constexpr const char* kSaved = "_CUDOCTOR_USE";  // set: the variables below are this shell's
constexpr const char* kOldPath = "_CUDOCTOR_USE_OLD_PATH";
constexpr const char* kOldLdLibraryPath = "_CUDOCTOR_USE_OLD_LD_LIBRARY_PATH";
constexpr const char* kOldCudaHome = "_CUDOCTOR_USE_OLD_CUDA_HOME";
constexpr const char* kOldCudaPath = "_CUDOCTOR_USE_OLD_CUDA_PATH";
constexpr const char* kSetPath = "_CUDOCTOR_USE_PATH";
constexpr const char* kSetLdLibraryPath = "_CUDOCTOR_USE_LD_LIBRARY_PATH";

/// The line that sets (or, for nullopt, unsets) one exported variable. fish keeps a variable
/// whose name ends in PATH as a list, exported joined by ':', so such a value is split.
std::string assign(Shell shell, std::string_view name, const std::optional<std::string>& value) {
    const std::string n(name);
    if (shell == Shell::fish) {
        if (!value) return "set -e " + n + "\n";
        std::string out = "set -gx " + n;
        if (name.ends_with("PATH"))
            for (auto p : text::split(*value, ':')) out += " " + fish_quote(p);
        else out += " " + fish_quote(*value);
        return out + "\n";
    }
    if (!value) return "unset " + n + "\n";
    return "export " + n + "=" + text::shell_quote(*value) + "\n";
}

std::optional<std::string> unless_empty(const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); }

}  // namespace

ShellEnv read_shell_env(const std::function<std::optional<std::string>(const char*)>& get) {
    ShellEnv env{get("PATH"), get("LD_LIBRARY_PATH"), get("CUDA_PATH"), get("CUDA_HOME"), std::nullopt};
    if (get(kSaved))
        env.saved =
            SavedShell{get(kOldPath), get(kOldLdLibraryPath), get(kOldCudaHome), get(kOldCudaPath), get(kSetPath), get(kSetLdLibraryPath)};
    return env;
}

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
    if (!env.saved) {  // the first switch of this shell: what `use --unset` puts back
        out += assign(shell, kOldPath, env.path) + assign(shell, kOldLdLibraryPath, env.ld_library_path) +
               assign(shell, kOldCudaHome, env.cuda_home) + assign(shell, kOldCudaPath, env.cuda_path) + assign(shell, kSaved, "1");
    }
    out += assign(shell, "CUDA_HOME", r.home);
    if (env.cuda_path) out += assign(shell, "CUDA_PATH", r.home);
    out += assign(shell, "PATH", path) + assign(shell, "LD_LIBRARY_PATH", unless_empty(ld));
    out += assign(shell, kSetPath, path) + assign(shell, kSetLdLibraryPath, unless_empty(ld));
    if (shell != Shell::fish) out += "hash -r 2>/dev/null || true\n";  // forget where nvcc was
    return out;
}

Expected<Unset> unset_script(Shell shell, const ShellEnv& env, const std::vector<std::string>& toolkit_dirs) {
    if (!env.saved)
        return fail(Errc::usage, "this shell was not switched by cudoctor use (no _CUDOCTOR_USE in its environment): nothing to undo");
    const SavedShell& saved = *env.saved;
    Unset u;
    u.script = "# cudoctor use --unset: the shell as it was before cudoctor use\n";
    // A list nothing touched since `use` comes back whole; one changed since (a venv activated,
    // a folder added) keeps the change and loses only the CUDA toolkits' entries.
    const auto restore = [&](const char* name, const std::optional<std::string>& now, const std::optional<std::string>& before,
                             const std::optional<std::string>& set_last) -> std::optional<std::string> {
        if (now == set_last) return before;
        if (!now) return now;
        u.notes.push_back(std::string(name) + " changed since cudoctor use: kept as it is, without the CUDA toolkits' entries");
        const std::string kept = rewrite_list(*now, toolkit_dirs, "");
        return std::string_view(name) == "PATH" ? std::optional<std::string>(kept) : unless_empty(kept);
    };
    u.script += assign(shell, "PATH", restore("PATH", env.path, saved.path, saved.set_path));
    u.script +=
        assign(shell, "LD_LIBRARY_PATH", restore("LD_LIBRARY_PATH", env.ld_library_path, saved.ld_library_path, saved.set_ld_library_path));
    u.script += assign(shell, "CUDA_HOME", saved.cuda_home) + assign(shell, "CUDA_PATH", saved.cuda_path);
    for (const char* name : {kOldPath, kOldLdLibraryPath, kOldCudaHome, kOldCudaPath, kSetPath, kSetLdLibraryPath, kSaved})
        u.script += assign(shell, name, std::nullopt);
    if (shell != Shell::fish) u.script += "hash -r 2>/dev/null || true\n";
    return u;
}

// Not clang-formatted: the shell code, one of its lines per source line. The hooks look for
// .cuda-version in the shell itself (a few stat calls on each change of folder); cudoctor runs
// only when the pin found differs from the last one (its path or its text), so a prompt costs
// no process.
// clang-format off
std::string init_script(Shell shell, std::string_view binary) {
    if (shell == Shell::fish) {
        const std::string bin = fish_quote(binary);
        return "# cudoctor init fish: add `" + std::string(binary) + " init fish | source` to ~/.config/fish/config.fish\n"
               "function cudoctor --description 'cudoctor; `cudoctor use VERSION` switches this shell'\n"
               "    if test (count $argv) -ge 1; and test \"$argv[1]\" = use\n"
               "        set -l __cudoctor_code (command " + bin + " use --shell fish $argv[2..-1]); or return $status\n"
               "        string join \\n -- $__cudoctor_code | source\n"
               "        set -g __cudoctor_pinned ''\n"
               "        return 0  # not the status of the last `set -e` sourced: 4 when that variable was unset\n"
               "    else\n"
               "        command " + bin + " $argv\n"
               "    end\n"
               "end\n"
               "# A .cuda-version in this folder or above it switches the shell on cd; leaving the folders\n"
               "# it covers undoes that (cudoctor use --unset). A `cudoctor use` typed by hand is kept.\n"
               "function __cudoctor_pin_hook --on-variable PWD\n"
               "    set -l dir $PWD\n"
               "    set -l pin\n"
               "    while true\n"
               "        if test -f \"$dir/.cuda-version\"\n"
               "            set pin \"$dir/.cuda-version\"\n"
               "            break\n"
               "        end\n"
               "        test -n \"$dir\"; or break\n"
               "        set dir (string replace -r '/[^/]*$' '' -- $dir)\n"
               "    end\n"
               "    set -l key\n"
               "    test -n \"$pin\"; and set key \"$pin:\"(cat -- $pin 2>/dev/null | string collect)\n"
               "    test \"$key\" = \"$__cudoctor_pin_key\"; and return 0\n"
               "    set -g __cudoctor_pin_key $key\n"
               "    if test -n \"$pin\"\n"
               "        cudoctor use --dir $PWD; and set -g __cudoctor_pinned 1\n"
               "    else if test -n \"$__cudoctor_pinned\"\n"
               "        set -g __cudoctor_pinned ''\n"
               "        cudoctor use --unset\n"
               "    end\n"
               "    return 0\n"
               "end\n"
               "__cudoctor_pin_hook\n";
    }
    const std::string name = shell == Shell::zsh ? "zsh" : "bash";
    const std::string bin = text::shell_quote(binary);
    std::string out = "# cudoctor init " + name + ": add `eval \"$(" + std::string(binary) + " init " + name + ")\"` to ~/." + name + "rc\n"
           "cudoctor() {\n"
           "    if [ \"$1\" = use ]; then\n"
           "        shift\n"
           "        local __cudoctor_code\n"
           "        __cudoctor_code=\"$(command " + bin + " use --shell " + name + " \"$@\")\" || return $?\n"
           "        eval \"$__cudoctor_code\"\n"
           "        __cudoctor_pinned=\n"
           "    else\n"
           "        command " + bin + " \"$@\"\n"
           "    fi\n"
           "}\n"
           "# A .cuda-version in this folder or above it switches the shell on cd; leaving the folders\n"
           "# it covers undoes that (cudoctor use --unset). A `cudoctor use` typed by hand is kept.\n"
           "__cudoctor_pin_hook() {\n"
           "    local __status=$?\n"
           "    [ \"$PWD\" = \"${__cudoctor_pin_pwd-}\" ] && return $__status\n"
           "    __cudoctor_pin_pwd=$PWD\n"
           "    local __dir=\"$PWD\" __pin=\"\" __key=\"\"\n"
           "    while :; do\n"
           "        if [ -f \"$__dir/.cuda-version\" ]; then __pin=\"$__dir/.cuda-version\"; break; fi\n"
           "        [ -n \"$__dir\" ] || break\n"
           "        __dir=\"${__dir%/*}\"\n"
           "    done\n"
           "    [ -n \"$__pin\" ] && __key=\"$__pin:$(cat -- \"$__pin\" 2>/dev/null)\"\n"
           "    [ \"$__key\" = \"${__cudoctor_pin_key-}\" ] && return $__status\n"
           "    __cudoctor_pin_key=$__key\n"
           "    if [ -n \"$__pin\" ]; then\n"
           "        cudoctor use --dir \"$PWD\" && __cudoctor_pinned=1\n"
           "    elif [ -n \"${__cudoctor_pinned-}\" ]; then\n"
           "        __cudoctor_pinned=\n"
           "        cudoctor use --unset\n"
           "    fi\n"
           "    return $__status\n"
           "}\n";
    if (shell == Shell::zsh)
        return out + "autoload -Uz add-zsh-hook\n"
                     "add-zsh-hook chpwd __cudoctor_pin_hook\n"
                     "__cudoctor_pin_hook\n";
    return out + "if [[ \";${PROMPT_COMMAND[*]:-};\" != *\";__cudoctor_pin_hook;\"* ]]; then\n"
                 "    PROMPT_COMMAND=\"__cudoctor_pin_hook${PROMPT_COMMAND:+;$PROMPT_COMMAND}\"\n"
                 "fi\n";
    // clang-format on
}

}  // namespace cudoctor::toolkits
