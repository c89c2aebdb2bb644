// `cudoctor verify-installer FILE`: is this downloaded installer whole and genuine, before
// anything runs it. Exit 0 good, 1 bad, 2 usage (no such file, a malformed --sha256).
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <memory>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/terminal.hpp"
#include "installer/render.hpp"
#include "installer/verify.hpp"

namespace cudoctor::commands {
namespace {

struct VerifyInstallerOptions {
    installer::VerifyOptions verify;
    bool json = false;
    bool no_progress = false;
};

ExitStatus run_verify_installer(VerifyInstallerOptions& o) {
    if (const char* tmp = std::getenv("TMPDIR"); tmp && *tmp) o.verify.unpack_dir = tmp;
    if (const char* fs = std::getenv("CUDOCTOR_OVERRIDE_FS_TYPE"); fs && *fs) o.verify.fs_type_override = fs;
    installer::ProgressBar bar(std::cerr, !o.no_progress && !quiet() && ::isatty(STDERR_FILENO));
    auto report = installer::verify_installer(o.verify, [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); });
    bar.finish();
    if (!report) return report_error(report.error(), o.json, "verify-installer", std::cout, std::cerr);
    if (o.json) {
        installer::render_json(*report, std::cout);
    } else if (quiet()) {
        std::cout << report->summary << "\n";
    } else {
        installer::render_text(*report, color_enabled(STDOUT_FILENO), std::cout);
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
    return {cmd, [o] { return run_verify_installer(*o); }};
}

}  // namespace cudoctor::commands
