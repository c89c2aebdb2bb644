#pragma once
// The machine a command looks at, opened one way for every command: the options they share
// (--root, --kb, --python, --no-exec) registered once with one help text each, and open_machine,
// the only place that chooses between this machine and a --root image.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/error.hpp"
#include "gpucode/inputs.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "snapshot/snapshot.hpp"
#include "toolkits/inventory.hpp"

namespace cudoctor::commands {

/// The values of the shared machine options.
struct MachineOptions {
    std::optional<std::string> root;    ///< --root DIR: a machine image instead of this machine
    std::optional<std::string> kb_dir;  ///< --kb DIR: newer knowledge-base tables over the built-in ones
    std::vector<std::string> pythons;   ///< --python PATH (repeatable): more interpreters to inspect
    bool no_exec = false;               ///< --no-exec: never start a child process while probing
};

/// Which of the shared options a command offers (every one that it offers means the same there).
struct MachineOffer {
    bool root = true;
    bool kb = true;
    bool python = false;
    bool no_exec = false;
};

/// The options add_machine_options registered (nullptr for one not offered), for a command's
/// own options to exclude or need them.
struct MachineOptionRefs {
    CLI::Option* root = nullptr;
    CLI::Option* kb = nullptr;
    CLI::Option* python = nullptr;
    CLI::Option* no_exec = nullptr;
};

/// Registers the offered shared options on `cmd`, bound to `options`.
MachineOptionRefs add_machine_options(CLI::App* cmd, MachineOptions& options, MachineOffer offer = {});

/// A file named on the command line, as a machine path: taken from the working folder when
/// relative (lexically normalised), unchanged when absolute or when the working folder is gone.
std::string command_line_path(const std::string& path);

/// How much of the machine to probe into Machine::snap.
enum class Probe {
    none,             ///< nothing (the command probes later with take_snapshot, or never)
    gpus_and_driver,  ///< the GPU and driver probes only: files, never a child process
    toolkits,         ///< the environment and toolkit probes only: files, never a child process
    all,              ///< every probe: child processes unless --no-exec, the --python interpreters too
};

/// What a command asks open_machine for, beyond the Host and the KB (always opened).
struct MachineParts {
    Probe probe = Probe::none;
    /// Take the toolkit inventory (`list`, `switch`, …) from the probed snapshot; needs Probe::all.
    std::optional<toolkits::InventoryOptions> inventory = std::nullopt;
};

struct Machine {
    host::Host host;
    kb::Kb kb;
    snapshot::Snapshot snap;        ///< as MachineParts::probe asked (empty for Probe::none)
    toolkits::Inventory inventory;  ///< when MachineParts::inventory asked for it
};

/// The top-level folders of which a --root image must have at least one (every Linux root has
/// them); an image that has none is refused.
inline constexpr const char* kMachineImageFolders[] = {"etc", "usr", "proc", "sys", "var", "opt"};

/// The interpreter a --python names, as a machine path. An absolute path is taken as given; a
/// relative one (./py3, venv/bin/python) is taken from the working folder, as the shell that
/// typed it would, and refused in an image (--root), which has no working folder. Errc::usage
/// for a relative path in an image, Errc::not_found when nothing is there: each one line that
/// starts "--python PATH: ".
[[nodiscard]] Expected<std::string> python_path(const host::Host& host, const std::string& given);

/// This machine, or the image under --root. Errc::not_found when the root folder does not
/// exist (Host::rooted's error); Errc::usage, "DIR: not a machine image (…)", when it has none of
/// kMachineImageFolders (an empty folder, a project folder named by mistake).
[[nodiscard]] Expected<host::Host> open_host(const MachineOptions& options);

/// Loads the KB (built in, --kb DIR over it), opens the Host (open_host) and probes what `parts`
/// asks for. The KB's error first (Kb::load's), then the Host's, then python_path()'s for each
/// --python.
[[nodiscard]] Expected<Machine> open_machine(const MachineOptions& options, const MachineParts& parts = {});

/// Runs the probes `depth` names on `host` (Probe::none: an empty Snapshot).
[[nodiscard]] snapshot::Snapshot take_snapshot(const host::Host& host, const kb::Kb& kb, const MachineOptions& options, Probe depth);

/// FILE|FOLDER|PACKAGE arguments (arch, kernels) as the files to read: on this machine a relative
/// path is taken from the working folder, in an image from its root; an argument that is no path
/// is looked up as a Python package in the machine's site folders.
[[nodiscard]] gpucode::Expansion expand_binary_arguments(const Machine& m, const std::vector<std::string>& args);

}  // namespace cudoctor::commands
