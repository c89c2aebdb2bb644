#pragma once
// The shell code behind `cudoctor use` and `cudoctor init`: set CUDA_HOME, PATH and
// LD_LIBRARY_PATH for one toolkit in the calling shell, with every other toolkit's entries taken
// out (not only the new one prepended), so running it twice changes nothing the second time.
// The first `use` in a shell saves what it changes (exported _CUDOCTOR_USE_* variables, so the
// next `cudoctor` process and child shells see them); `use --unset` puts it back.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace cudoctor::toolkits {

enum class Shell { bash, zsh, fish };

/// "bash", "zsh", "fish" (also "sh", "dash", "ksh" → bash's POSIX code). Errc::usage otherwise.
Expected<Shell> parse_shell(std::string_view name);

/// The toolkit to switch to, and the folders whose PATH / LD_LIBRARY_PATH entries go.
struct UseRequest {
    std::string home;     ///< the toolkit folder: CUDA_HOME
    std::string bin_dir;  ///< prepended to PATH ("" when it has no bin/)
    std::string lib_dir;  ///< prepended to LD_LIBRARY_PATH ("" when it has no libraries)
    /// Every CUDA toolkit folder (and alias such as /usr/local/cuda, /usr/local/cuda-12): an
    /// entry equal to one of them or below it is removed.
    std::vector<std::string> toolkit_dirs;
    std::string label;  ///< "CUDA 12.4.131 (/usr/local/cuda-12.4)", for the comment line
};

/// What the first `use` in a shell found there (nullopt: unset), and what `use` set last.
struct SavedShell {
    std::optional<std::string> path, ld_library_path, cuda_home, cuda_path;  ///< before the first `use`
    std::optional<std::string> set_path, set_ld_library_path;                ///< as the last `use` left them
};

/// The current values of the calling shell (nullopt: unset).
struct ShellEnv {
    std::optional<std::string> path, ld_library_path, cuda_path, cuda_home;
    std::optional<SavedShell> saved;  ///< nullopt: `use` has not switched this shell
};

/// The shell's values as `get` (an environment lookup, nullopt when unset) reports them,
/// with what an earlier `use` saved.
ShellEnv read_shell_env(const std::function<std::optional<std::string>(const char*)>& get);

/// A colon list with every entry equal to or under one of `dirs` removed, then `first`
/// prepended (when not empty). Empty entries are kept (they mean ".") except a trailing one.
std::string rewrite_list(std::string_view list, const std::vector<std::string>& dirs, std::string_view first);

/// The code that switches the calling shell: exports CUDA_HOME (and CUDA_PATH when it was set),
/// PATH and LD_LIBRARY_PATH with old toolkit entries removed, and forgets hashed command paths.
/// When `env.saved` is empty, it first saves the shell's values for `use --unset`.
std::string use_script(Shell shell, const UseRequest& request, const ShellEnv& env);

/// `use --unset`: the code that puts back what the first `use` saved. PATH and LD_LIBRARY_PATH
/// come back exactly when nothing changed them since the last `use`; one changed since keeps its
/// other entries and loses only those under `toolkit_dirs`, and `notes` says so.
struct Unset {
    std::string script;
    std::vector<std::string> notes;
};
/// Errc::usage when `env.saved` is empty: `use` has not switched this shell.
Expected<Unset> unset_script(Shell shell, const ShellEnv& env, const std::vector<std::string>& toolkit_dirs);

/// A shell function named `cudoctor` so that `cudoctor use 12.4` switches the shell directly:
/// it evaluates `BINARY use --shell SHELL ...` and passes every other subcommand through. And a
/// hook run on each change of folder (bash: PROMPT_COMMAND, zsh: chpwd, fish: PWD): a
/// `.cuda-version` in the new folder or above it switches the shell (`use --dir`), and leaving
/// the folders it covers undoes what it switched (`use --unset`); a `use` typed by hand is kept.
std::string init_script(Shell shell, std::string_view binary);

}  // namespace cudoctor::toolkits
