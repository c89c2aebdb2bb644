// `cudoctor use [VERSION]`: the shell code that switches the calling shell to one toolkit
// (CUDA_HOME, PATH, LD_LIBRARY_PATH, the other toolkits' entries taken out), for
// `eval "$(cudoctor use 12.4)"`; with no version, the .cuda-version pin found upward.
// `cudoctor use --unset`: the shell code that puts back what the first `use` changed.
// `cudoctor init bash|zsh|fish`: a shell function so `cudoctor use 12.4` needs no eval, and the
// hook that applies a .cuda-version on cd.
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "commands/command.hpp"
#include "commands/machine.hpp"
#include "toolkits/match.hpp"
#include "toolkits/shell.hpp"

namespace cudoctor::commands {
namespace {

struct UseOptions {
    std::optional<std::string> version;
    std::optional<std::string> shell;
    std::optional<std::string> dir;
    bool unset = false;
    MachineOptions machine;  ///< --root, --kb
    bool quiet = false;      ///< main's -q/--quiet: no warning; the shell code is the result (like --json), kept whole
};

ExitStatus fail_use(const Error& e, std::ostream& out, std::ostream& err) {
    err << "cudoctor use: " << e.message << "\n";
    // Whatever evaluates stdout gets a command that fails, so `eval "$(cudoctor use X)" && …` stops.
    out << "false\n";
    return ExitStatus::usage;
}

std::optional<std::string> process_env(const char* key) {
    const char* v = std::getenv(key);
    return v ? std::optional<std::string>(v) : std::nullopt;
}

ExitStatus run_use(const UseOptions& options, std::ostream& out, std::ostream& err) {
    const auto give_up = [&](const Error& e) { return fail_use(e, out, err); };
    auto shell = toolkits::parse_shell(options.shell.value_or(process_env("SHELL").value_or("bash")));
    if (!shell) {
        if (options.shell) return give_up(shell.error());
        shell = toolkits::Shell::bash;  // an unknown login shell: POSIX code
    }
    if (options.unset && (options.version || options.dir)) return give_up({Errc::usage, "--unset takes no VERSION and no --dir"});
    const auto env = toolkits::read_shell_env(process_env);
    if (options.unset && !env.saved) return give_up(toolkits::unset_script(*shell, env, {}).error());  // before probing anything
    auto machine = open_machine(options.machine, {.probe = Probe::all, .inventory = toolkits::InventoryOptions{.sizes = false}});
    if (!machine) return give_up(machine.error());
    const auto& m = *machine;

    // Every CUDA toolkit folder and alias: their PATH / LD_LIBRARY_PATH entries are what `use`
    // replaces, and what `--unset` takes out of a list changed since.
    std::vector<std::string> toolkit_dirs;
    for (const auto& e : m.inventory.toolkits)
        if (e.toolkit.install_method != snapshot::InstallMethod::pip && e.toolkit.install_method != snapshot::InstallMethod::conda)
            toolkit_dirs.push_back(e.toolkit.path);
    for (const auto& alias : m.host.glob("/usr/local", "cuda*")) toolkit_dirs.push_back(alias);
    for (const auto& alias : m.host.glob("/opt", "cuda*")) toolkit_dirs.push_back(alias);
    if (auto home = env.cuda_home; home && !home->empty() && *home != "/" && *home != "/usr") toolkit_dirs.push_back(*home);

    if (options.unset) {
        auto unset = toolkits::unset_script(*shell, env, toolkit_dirs);
        if (!unset) return give_up(unset.error());
        out << unset->script;
        if (!options.quiet)
            for (const auto& note : unset->notes) err << "cudoctor use: " << note << "\n";
        return ExitStatus::healthy;
    }

    std::string spec;
    std::string pin_note;
    if (options.version) {
        spec = *options.version;
    } else {
        std::string start = options.dir.value_or(m.host.is_rooted() ? "/" : std::filesystem::current_path().string());
        auto pin = toolkits::find_pin(m.host, start);
        if (!pin) return give_up(pin.error());
        if (!*pin)
            return give_up(m.host.in_image(Error{Errc::usage, "no version given and no .cuda-version file in " + start + " or above it"}));
        spec = (*pin)->version;
        pin_note = " (pinned by " + (*pin)->file + ")";
    }
    auto entry = toolkits::match_toolkit(m.host, m.inventory, spec);
    if (!entry) return give_up(entry.error());
    const auto& tk = (*entry)->toolkit;

    toolkits::UseRequest request;
    request.home = tk.path;
    if (tk.has_nvcc) request.bin_dir = host::dirname(tk.nvcc_path);
    request.lib_dir = m.host.is_dir(host::join(tk.path, "lib64")) ? host::join(tk.path, "lib64") : tk.lib_dir;
    request.toolkit_dirs = toolkit_dirs;
    request.label = "CUDA " + ((*entry)->release.empty() ? tk.version : (*entry)->release) + " from " + tk.path + pin_note;

    out << toolkits::use_script(*shell, request, env);
    if (!tk.has_nvcc && !options.quiet) err << "cudoctor use: " << tk.path << " has no nvcc: PATH is left without a CUDA compiler\n";
    return ExitStatus::healthy;
}

}  // namespace

Command add_use_command(CLI::App& app) {
    auto options = std::make_shared<UseOptions>();
    auto* cmd = app.add_subcommand("use", "print the shell code that switches this shell to one toolkit: eval \"$(cudoctor use 12.4)\"");
    cmd->add_option("version", options->version, "12, 12.4, 12.4.1 or a folder; default: the .cuda-version file found upward");
    cmd->add_option("--shell", options->shell, "bash, zsh or fish (default: from $SHELL)");
    cmd->add_option("--dir", options->dir, "look for .cuda-version from this folder up (default: the current folder)");
    cmd->add_flag("--unset", options->unset, "put back what the first `use` in this shell changed");
    add_machine_options(cmd, options->machine);
    return {cmd, [options](const Output& o) {
                options->quiet = o.quiet;
                return run_use(*options, o.out, o.err);
            }};
}

Command add_init_command(CLI::App& app) {
    auto shell = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("init", "print a shell function so `cudoctor use 12.4` switches the shell without eval");
    cmd->add_option("shell", *shell, "bash, zsh or fish")->required();
    return {cmd, [shell](const Output& o) {
                auto parsed = toolkits::parse_shell(*shell);
                if (!parsed) {
                    o.err << "cudoctor init: " << parsed.error().message << "\n";
                    return ExitStatus::usage;
                }
                std::error_code ec;
                auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
                o.out << toolkits::init_script(*parsed, ec ? std::string("cudoctor") : self.string());
                return ExitStatus::healthy;
            }};
}

}  // namespace cudoctor::commands
