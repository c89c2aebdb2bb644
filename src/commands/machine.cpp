#include "commands/machine.hpp"

#include <cstdlib>
#include <filesystem>

#include "common/text.hpp"
#include "common/version.hpp"
#include "probe/context.hpp"
#include "probe/python_sites.hpp"
#include "snapshot/taken_at.hpp"

namespace cudoctor::commands {

MachineOptionRefs add_machine_options(CLI::App* cmd, MachineOptions& options, MachineOffer offer) {
    MachineOptionRefs refs;
    if (offer.root)
        refs.root = cmd->add_option("--root", options.root, "work on a machine image (a folder laid out like /) instead of this machine");
    if (offer.kb) refs.kb = cmd->add_option("--kb", options.kb_dir, "read knowledge-base tables from DIR (newer than the built-in ones)");
    if (offer.python)
        refs.python = cmd->add_option("--python", options.pythons, "also inspect this Python interpreter's packages (repeatable)");
    if (offer.no_exec)
        refs.no_exec = cmd->add_flag("--no-exec", options.no_exec, "never start a child process while probing (not even nvcc --version)");
    return refs;
}

namespace {

/// A CUDOCTOR_OVERRIDE_* value that does not parse was silently dropped, leaving the user to
/// believe it applied: each is an error (exit 2) instead.
Expected<void> check_overrides() {
    for (const char* name : {"CUDOCTOR_OVERRIDE_DRIVER_VERSION", "CUDOCTOR_OVERRIDE_CUDA"}) {
        const char* v = std::getenv(name);
        if (v && *v && !Version::parse(v))
            return fail(Errc::usage, std::string(name) + "='" + text::printable(v) + "': not a version (550.54.14, 12.4)");
    }
    if (const char* t = std::getenv("CUDOCTOR_OVERRIDE_TIME"); t && *t && !snapshot::parse_utc(t))
        return fail(Errc::usage, "CUDOCTOR_OVERRIDE_TIME='" + text::printable(t) + "': not a UTC time like 2024-06-12T06:41:26Z");
    return {};
}

}  // namespace

std::string command_line_path(const std::string& path) {
    if (path.starts_with('/')) return path;
    std::error_code ec;
    const auto abs = std::filesystem::absolute(path, ec);
    return ec ? path : abs.lexically_normal().string();
}

Expected<std::string> python_path(const host::Host& host, const std::string& given) {
    std::string path = given;
    if (!given.starts_with('/')) {
        if (host.is_rooted())
            return fail(Errc::usage, "--python " + given + ": a relative path means nothing in the image " + host.root() +
                                         ": give the interpreter's absolute path inside it (/usr/bin/python3)");
        std::error_code ec;
        const auto absolute = std::filesystem::absolute(given, ec);
        if (ec) return fail(Errc::usage, "--python " + given + ": " + ec.message());
        path = absolute.lexically_normal().string();
    }
    if (!host.exists(path))
        return Unexpected<Error>(
            host.in_image(Error{Errc::not_found, "--python " + given + ": no such file" + (path == given ? "" : " (" + path + ")")}));
    return path;
}

Expected<host::Host> open_host(const MachineOptions& options) {
    if (auto ok = check_overrides(); !ok) return Unexpected<Error>(ok.error());
    if (!options.root) return host::Host::real();
    auto host = host::Host::rooted(*options.root);
    if (!host) return host;
    // An empty folder or the wrong one would probe as a machine with nothing on it: a clean bill
    // of health for a machine that is not there. A machine image has the folders of a Linux root.
    for (const char* dir : kMachineImageFolders)
        if (host->is_dir(std::string("/") + dir)) return host;
    return fail(Errc::usage, *options.root +
                                 ": not a machine image (a folder laid out like /: it has none of /etc, /usr, /proc, "
                                 "/sys, /var, /opt)");
}

Expected<Machine> open_machine(const MachineOptions& options, const MachineParts& parts) {
    auto kb = kb::Kb::load(options.kb_dir);
    if (!kb) return Unexpected<Error>(kb.error());
    auto host = open_host(options);
    if (!host) return Unexpected<Error>(host.error());
    // A --python that is not there was silently ignored: the report then lacked what was asked for.
    for (const auto& python : options.pythons)
        if (auto path = python_path(*host, python); !path) return Unexpected<Error>(path.error());
    Machine m{std::move(*host), std::move(*kb), {}, {}};
    m.snap = take_snapshot(m.host, m.kb, options, parts.probe);
    if (parts.inventory) m.inventory = toolkits::take_inventory(m.host, m.snap, *parts.inventory);
    return m;
}

snapshot::Snapshot take_snapshot(const host::Host& host, const kb::Kb& kb, const MachineOptions& options, Probe depth) {
    probe::Options probe_options;
    if (depth == Probe::all) {
        // As open_machine checked them: a relative one from the working folder.
        for (const auto& python : options.pythons) probe_options.pythons.push_back(python_path(host, python).value_or(python));
        probe_options.allow_processes = !options.no_exec;
        return probe::probe_machine(host, kb, probe_options);
    }
    snapshot::Snapshot snap;
    probe_options.allow_processes = false;
    probe::Context ctx(host, kb, probe_options, snap);
    switch (depth) {
        case Probe::gpus_and_driver:
            probe::probe_gpus(ctx);
            probe::probe_driver(ctx);
            break;
        case Probe::toolkits:
            probe::probe_environment(ctx);
            probe::probe_toolkits(ctx);
            break;
        case Probe::none:
        case Probe::all: break;
    }
    return snap;
}

gpucode::Expansion expand_binary_arguments(const Machine& m, const std::vector<std::string>& args) {
    std::vector<std::string> inputs;
    for (const auto& in : args) {
        // symlink_status: a link that loops is still a path (said cleanly by the expansion), and never throws.
        std::error_code ec;
        const bool relative_path = !in.starts_with('/') && !m.host.is_rooted() &&
                                   std::filesystem::symlink_status(in, ec).type() != std::filesystem::file_type::not_found && !ec;
        inputs.push_back(relative_path ? std::filesystem::absolute(in).lexically_normal().string() : in);
    }
    bool wants_packages = false;
    for (const auto& in : inputs) wants_packages = wants_packages || !m.host.exists(in);
    std::vector<std::string> sites;
    if (wants_packages) {
        snapshot::Snapshot snap;
        probe::Options options;
        probe::Context ctx(m.host, m.kb, options, snap);
        for (const auto& site : probe::find_python_sites(ctx)) sites.push_back(site.dir);
    }
    return gpucode::expand_inputs(m.host, inputs, sites);
}

}  // namespace cudoctor::commands
