// `cudoctor verify-installer FILE`: is this downloaded installer whole and genuine, before
// anything runs it. Exit 0 good, 1 bad, 2 usage (no such file, a malformed --sha256).
#include <cstdlib>
#include <memory>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "host/host.hpp"
#include "installer/render.hpp"
#include "installer/verify.hpp"
#include "kb/kb.hpp"
#include "report/style.hpp"

namespace cudoctor::commands {
namespace {

struct VerifyInstallerOptions {
    installer::VerifyOptions verify;
    MachineOptions machine;  ///< --kb only: the published checksums of a newer table
    bool json = false;
    bool no_progress = false;
    bool quiet = false;     ///< main's -q/--quiet: the summary line only
    bool color = false;     ///< main's colour decision for standard output
    bool progress = false;  ///< main's decision that `err` is a terminal, where a progress bar may be drawn
};

ExitStatus run_verify_installer(VerifyInstallerOptions& o, std::ostream& out, std::ostream& err) {
    if (const char* tmp = std::getenv("TMPDIR"); tmp && *tmp) o.verify.unpack_dir = tmp;
    if (const char* fs = std::getenv("CUDOCTOR_OVERRIDE_FS_TYPE"); fs && *fs) o.verify.fs_type_override = fs;
    // NVIDIA's downloads whose checksums are published: a file of that name is checked against them.
    auto kb = kb::Kb::load(o.machine.kb_dir);
    if (!kb) return report_error(kb.error(), o.json, "verify-installer", out, err);
    const std::string name = host::basename(o.verify.path);
    if (const auto* known = kb->installer_checksum(name))
        o.verify.known = installer::KnownChecksum{known->sha256, known->md5, known->source};
    installer::ProgressBar bar(err, !o.no_progress && !o.quiet && o.progress);
    auto report = installer::verify_installer(o.verify, [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); });
    bar.finish();
    if (!report) return report_error(report.error(), o.json, "verify-installer", out, err);
    if (o.json) {
        installer::render_json(*report, out);
    } else if (o.quiet) {
        out << report::outside_text(report->summary, report::Medium::terminal) << "\n";  // it may quote the file's label
    } else {
        installer::render_text(*report, o.color, out);
    }
    return report->is_good() ? ExitStatus::healthy : ExitStatus::problems;
}

}  // namespace

Command add_verify_installer_command(CLI::App& app) {
    auto o = std::make_shared<VerifyInstallerOptions>();
    auto* cmd = app.add_subcommand("verify-installer", "is this downloaded .run / .tar.xz / .deb whole and genuine (read once, never run)");
    cmd->add_option("FILE", o->verify.path, "the installer: a CUDA or driver .run, a cuDNN .tar.xz, a local-repo .deb")->required();
    auto* sha = cmd->add_option("--sha256", o->verify.sha256, "the SHA-256 the download page gives (64 hex digits)");
    cmd->add_option("--md5", o->verify.md5, "the MD5 the download page gives (32 hex digits)")->excludes(sha);
    cmd->add_flag("--json", o->json, "print the report as JSON");
    cmd->add_flag("--no-progress", o->no_progress, "no progress bar, even on a terminal");
    add_machine_options(cmd, o->machine, {.root = false, .kb = true});
    return {cmd, [o](const Output& output) {
                o->quiet = output.quiet;
                o->color = output.color;
                o->progress = output.err_is_terminal;
                return run_verify_installer(*o, output.out, output.err);
            }};
}

}  // namespace cudoctor::commands
