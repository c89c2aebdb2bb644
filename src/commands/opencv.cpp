// `cudoctor opencv cmake|log|check`: OpenCV with CUDA — the CMake line for this machine, what a
// saved configure log really enabled, and what an installed cv2 can do on this GPU.
#include <memory>

#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "commands/machine.hpp"
#include "common/duration.hpp"
#include "common/text.hpp"
#include "formats/cmake_log.hpp"
#include "gpucode/gpus.hpp"
#include "host/files.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "opencv/cmake_plan.hpp"
#include "opencv/cv2_check.hpp"
#include "opencv/log_report.hpp"
#include "report/style.hpp"

namespace cudoctor::commands {
namespace {

struct OpencvOptions {
    // shared
    std::vector<std::string> gpus;
    MachineOptions machine;  ///< --root (cmake, log), --kb
    bool json = false;
    // cmake
    std::string src = "opencv";
    std::optional<std::string> contrib;
    bool portable = false;
    std::optional<std::string> python;
    std::optional<std::string> cuda;
    std::string prefix = "/usr/local";
    // log
    std::string log_file;
    // check
    std::string timeout = "20s";
    bool quiet = false;  ///< main's -q/--quiet: each subcommand's verdict in one line
};

/// Logs larger than this are refused: a configure log is a few hundred KiB.
constexpr std::size_t kMaxLogBytes = 64u << 20;

/// The streams of the run, for the helpers below.
struct Streams {
    std::ostream& out;
    std::ostream& err;
};

ExitStatus usage_error(const OpencvOptions& o, const Streams& s, const std::string& sub, const Error& e,
                       ExitStatus status = ExitStatus::usage) {
    return report_error(e, o.json, "opencv " + sub, s.out, s.err, status);
}

Expected<std::vector<gpucode::TargetGpu>> given_gpus(const OpencvOptions& o, const kb::Kb& kb) {
    std::vector<gpucode::TargetGpu> gpus;
    for (const auto& spec : o.gpus) {
        auto g = gpucode::resolve_gpu(kb, spec);
        if (!g) return Unexpected<Error>(g.error());
        gpus.push_back(std::move(*g));
    }
    return gpus;
}

ExitStatus run_cmake(const OpencvOptions& o, const Streams& s) {
    // The interpreter cv2 is built for is probed too; child processes are allowed (no --no-exec).
    MachineOptions machine = o.machine;
    if (o.python) machine.pythons = {*o.python};
    auto m = open_machine(machine);
    if (!m) return usage_error(o, s, "cmake", m.error());
    const kb::Kb& kb = m->kb;
    const host::Host& host = m->host;
    // The interpreter as open_machine took it (a relative one from the working folder), for the -D lines.
    std::optional<std::string> python;
    if (o.python) python = python_path(host, *o.python).value_or(*o.python);
    auto gpus = given_gpus(o, kb);
    if (!gpus) return usage_error(o, s, "cmake", gpus.error());
    const auto snap = take_snapshot(host, kb, machine, Probe::all);

    opencv::CmakeRequest request;
    request.src = o.src;
    request.contrib = o.contrib;
    request.gpus = *gpus;
    request.portable = o.portable;
    request.python = python;
    request.cuda = o.cuda;
    request.install_prefix = o.prefix;
    auto plan = opencv::plan_cmake(host, snap, kb, request);
    if (!plan) return usage_error(o, s, "cmake", plan.error(), plan.error().code == Errc::usage ? ExitStatus::usage : ExitStatus::problems);
    if (o.json) s.out << report::json_text(opencv::to_json(*plan)) << "\n";
    else if (o.quiet) s.out << opencv::verdict_line(*plan) << "\n";
    else opencv::render_text(*plan, s.out);
    return plan->missing_required() ? ExitStatus::problems : ExitStatus::healthy;
}

Expected<std::string> read_log(const std::string& path) {
    auto data = path == "-" ? host::read_capped_stdin(kMaxLogBytes) : host::read_capped(path, kMaxLogBytes);
    if (!data && data.error().code == Errc::too_large) return fail(Errc::too_large, data.error().message + ", not a configure log");
    return data;
}

ExitStatus run_log(const OpencvOptions& o, const Streams& s) {
    auto kb = kb::Kb::load(o.machine.kb_dir);
    if (!kb) return usage_error(o, s, "log", kb.error());
    auto gpus = given_gpus(o, *kb);
    if (!gpus) return usage_error(o, s, "log", gpus.error());
    auto data = read_log(o.log_file);
    if (!data) return usage_error(o, s, "log", data.error());
    if (gpus->empty()) {
        // The machine is opened only when its GPUs are needed: a log judged for --gpu needs none.
        auto host = open_host(o.machine);
        if (!host) return usage_error(o, s, "log", host.error());
        *gpus = gpucode::machine_gpus(take_snapshot(*host, *kb, o.machine, Probe::gpus_and_driver).gpus);
    }
    opencv::LogContext ctx{false, *gpus, &*kb};
    const auto report = opencv::judge_log(formats::parse_opencv_build_log(*data), ctx);
    if (!report.recognized())
        return usage_error(
            o, s, "log",
            {Errc::parse,
             o.log_file +
                 ": no OpenCV CMake output in it (no \"General configuration for OpenCV\" summary, no CUDA or cuDNN lines, no CMake errors)"});
    if (o.json) s.out << report::json_text(opencv::to_json(report)) << "\n";
    else if (o.quiet) s.out << opencv::verdict_line(report) << "\n";
    else opencv::render_text(report, s.out);
    return report.problems() ? ExitStatus::problems : ExitStatus::healthy;
}

ExitStatus run_cv2_check(const OpencvOptions& o, const Streams& s) {
    // `opencv check` offers no --root: the cv2 it asks runs in a child interpreter on this machine.
    auto m = open_machine(o.machine);
    if (!m) return usage_error(o, s, "check", m.error());
    const host::Host& host = m->host;
    const kb::Kb& kb = m->kb;
    auto gpus = given_gpus(o, kb);
    if (!gpus) return usage_error(o, s, "check", gpus.error());
    const auto timeout = parse_duration(o.timeout);
    if (!timeout || *timeout <= std::chrono::milliseconds(0) || *timeout > std::chrono::hours(1))
        return usage_error(o, s, "check", {Errc::usage, "--timeout '" + o.timeout + "': not a duration from 1ms to 1h (20, 20s, 1.5m)"});
    const auto snap = take_snapshot(host, kb, o.machine, Probe::gpus_and_driver);
    if (gpus->empty()) *gpus = gpucode::machine_gpus(snap.gpus);
    std::optional<Version> driver_cuda = Version::parse(snap.driver.max_cuda);
    std::string python;
    if (o.python && !o.python->empty()) {
        // A relative one from the working folder, as `check --python` takes it (this command has no --root).
        auto path = python_path(host, *o.python);
        if (!path) return usage_error(o, s, "check", path.error());
        python = std::move(*path);
    } else {
        // python3 as the shell finds it: the first on PATH.
        for (const auto& dir : text::split(host.env("PATH").value_or("/usr/bin:/bin"), ':'))
            if (!dir.empty() && host.is_executable_file(host::join(dir, "python3"))) {
                python = host::join(dir, "python3");
                break;
            }
        if (python.empty()) return usage_error(o, s, "check", {Errc::not_found, "no python3 on PATH: give --python"});
    }
    auto check = opencv::check_cv2(host, kb, python, *timeout, *gpus, driver_cuda);
    if (!check) return usage_error(o, s, "check", check.error());
    if (o.json) s.out << report::json_text(opencv::to_json(*check)) << "\n";
    else if (o.quiet) s.out << opencv::verdict_line(*check) << "\n";
    else opencv::render_text(*check, s.out);
    return check->problems() ? ExitStatus::problems : ExitStatus::healthy;
}

void add_common(CLI::App* cmd, OpencvOptions& o, bool root) {
    cmd->add_option("--gpu", o.gpus, "judge for this GPU instead of this machine's: 8.9, sm_86, \"RTX 4090\" (repeatable)")
        ->allow_extra_args(false);
    cmd->add_flag("--json", o.json, "print JSON");
    add_machine_options(cmd, o.machine, {.root = root});
}

}  // namespace

Command add_opencv_command(CLI::App& app) {
    auto o = std::make_shared<OpencvOptions>();
    CLI::App* cmd =
        app.add_subcommand("opencv", "OpenCV with CUDA: the CMake line for this machine, a configure log read, an installed cv2 checked");
    cmd->require_subcommand(1);

    auto* cmake =
        cmd->add_subcommand("cmake", "print the CMake command that builds OpenCV with CUDA for this machine, after what is missing");
    cmake->add_option("--src", o->src, "the OpenCV source folder (default: opencv)");
    cmake->add_option("--contrib", o->contrib, "the opencv_contrib folder (its modules/ holds the cuda* modules)");
    cmake->add_flag("--portable", o->portable, "also PTX of the lowest architecture, for newer GPUs than these");
    cmake->add_option("--python", o->python, "build cv2 for this Python interpreter");
    cmake->add_option("--cuda", o->cuda, "use this toolkit (version like 12.4, or its folder) instead of the default one");
    cmake->add_option("--prefix", o->prefix, "CMAKE_INSTALL_PREFIX (default /usr/local)");
    add_common(cmake, *o, true);

    auto* log = cmd->add_subcommand(
        "log",
        "read a saved OpenCV configure or build log (or cv2.getBuildInformation() text): what was really enabled, or why the build stopped");
    log->add_option("file", o->log_file, "the log (cmake … 2>&1 | tee cmake_config.log); - for standard input")->required();
    add_common(log, *o, true);

    auto* check =
        cmd->add_subcommand("check",
                            "ask an installed cv2 (in a child interpreter) what it was built with and whether its CUDA code runs on this GPU");
    check->add_option("--python", o->python, "the interpreter whose cv2 to check (default: python3 on PATH)");
    check->add_option("--timeout", o->timeout, "how long the interpreter may take: 20, 20s, 1.5m (default 20s)");
    add_common(check, *o, false);

    return {cmd, [o, cmake, log](const Output& out) {
                o->quiet = out.quiet;
                const Streams s{out.out, out.err};
                if (cmake->parsed()) return run_cmake(*o, s);
                if (log->parsed()) return run_log(*o, s);
                return run_cv2_check(*o, s);
            }};
}

}  // namespace cudoctor::commands
