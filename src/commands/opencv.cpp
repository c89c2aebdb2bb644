// `cudoctor opencv cmake|log|check`: OpenCV with CUDA — the CMake line for this machine, what a
// saved configure log really enabled, and what an installed cv2 can do on this GPU.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "commands/errors.hpp"
#include "common/text.hpp"
#include "formats/cmake_log.hpp"
#include "gpucode/gpus.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "opencv/cmake_plan.hpp"
#include "opencv/cv2_check.hpp"
#include "opencv/log_report.hpp"
#include "probe/context.hpp"

namespace cudoctor::commands {
namespace {

struct OpencvOptions {
    // shared
    std::vector<std::string> gpus;
    std::optional<std::string> root;
    std::optional<std::string> kb_dir;
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
    double timeout_s = 20;
};

/// Logs larger than this are refused: a configure log is a few hundred KiB.
constexpr std::uintmax_t kMaxLogBytes = 64u << 20;

ExitStatus usage_error(const OpencvOptions& o, const std::string& sub, const Error& e, ExitStatus status = ExitStatus::usage) {
    return report_error(e, o.json, "opencv " + sub, std::cout, std::cerr, status);
}

Expected<host::Host> open_host(const OpencvOptions& o) {
    return o.root ? host::Host::rooted(*o.root) : Expected<host::Host>(host::Host::real());
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

/// This machine's GPUs and driver (GPU and driver probes only: fast, no child processes).
snapshot::Snapshot gpus_and_driver(const host::Host& host, const kb::Kb& kb) {
    snapshot::Snapshot snap;
    probe::Options options;
    options.allow_processes = false;
    probe::Context ctx(host, kb, options, snap);
    probe::probe_gpus(ctx);
    probe::probe_driver(ctx);
    return snap;
}

std::vector<gpucode::TargetGpu> machine_gpus(const snapshot::Snapshot& snap) {
    std::vector<gpucode::TargetGpu> gpus;
    for (const auto& g : snap.gpus)
        if (auto cc = gpucode::parse_compute_capability(g.compute_capability))
            gpus.push_back({g.name.empty() ? "GPU " + g.bus_id : g.name, *cc, g.bus_id});
    return gpus;
}

ExitStatus run_cmake(const OpencvOptions& o) {
    auto kb = kb::Kb::load(o.kb_dir);
    if (!kb) return usage_error(o, "cmake", kb.error());
    auto host = open_host(o);
    if (!host) return usage_error(o, "cmake", host.error());
    auto gpus = given_gpus(o, *kb);
    if (!gpus) return usage_error(o, "cmake", gpus.error());
    probe::Options options;
    if (o.python) options.pythons.push_back(*o.python);
    const auto snap = probe::probe_machine(*host, *kb, options);

    opencv::CmakeRequest request;
    request.src = o.src;
    request.contrib = o.contrib;
    request.gpus = *gpus;
    request.portable = o.portable;
    request.python = o.python;
    request.cuda = o.cuda;
    request.install_prefix = o.prefix;
    auto plan = opencv::plan_cmake(*host, snap, *kb, request);
    if (!plan) return usage_error(o, "cmake", plan.error(), plan.error().code == Errc::usage ? ExitStatus::usage : ExitStatus::problems);
    if (o.json) std::cout << opencv::to_json(*plan).dump(2) << "\n";
    else opencv::render_text(*plan, std::cout);
    return plan->missing_required() ? ExitStatus::problems : ExitStatus::healthy;
}

Expected<std::string> read_log(const std::string& path) {
    if (path == "-") {
        std::string data;
        char buf[65536];
        while (std::cin.read(buf, sizeof buf) || std::cin.gcount() > 0) {
            data.append(buf, static_cast<std::size_t>(std::cin.gcount()));
            if (data.size() > kMaxLogBytes) return fail(Errc::too_large, "standard input: larger than 64 MiB, not a configure log");
        }
        return data;
    }
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) return fail(Errc::not_found, path + ": no such file");
    if (!std::filesystem::is_regular_file(status)) return fail(Errc::io, path + ": not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(Errc::permission, path + ": cannot be read");
    std::string data;
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        data.append(buf, static_cast<std::size_t>(in.gcount()));
        if (data.size() > kMaxLogBytes) return fail(Errc::too_large, path + ": larger than 64 MiB, not a configure log");
    }
    return data;
}

ExitStatus run_log(const OpencvOptions& o) {
    auto kb = kb::Kb::load(o.kb_dir);
    if (!kb) return usage_error(o, "log", kb.error());
    auto gpus = given_gpus(o, *kb);
    if (!gpus) return usage_error(o, "log", gpus.error());
    auto data = read_log(o.log_file);
    if (!data) return usage_error(o, "log", data.error());
    if (gpus->empty() && o.root) {
        auto host = open_host(o);
        if (!host) return usage_error(o, "log", host.error());
        *gpus = machine_gpus(gpus_and_driver(*host, *kb));
    } else if (gpus->empty()) {
        *gpus = machine_gpus(gpus_and_driver(host::Host::real(), *kb));
    }
    opencv::LogContext ctx{false, *gpus, &*kb};
    const auto report = opencv::judge_log(formats::parse_opencv_build_log(*data), ctx);
    if (!report.recognized())
        return usage_error(
            o, "log",
            {Errc::parse,
             o.log_file +
                 ": no OpenCV CMake output in it (no \"General configuration for OpenCV\" summary, no CUDA or cuDNN lines, no CMake errors)"});
    if (o.json) std::cout << opencv::to_json(report).dump(2) << "\n";
    else opencv::render_text(report, std::cout);
    return report.problems() ? ExitStatus::problems : ExitStatus::healthy;
}

ExitStatus run_check(const OpencvOptions& o) {
    auto kb = kb::Kb::load(o.kb_dir);
    if (!kb) return usage_error(o, "check", kb.error());
    auto gpus = given_gpus(o, *kb);
    if (!gpus) return usage_error(o, "check", gpus.error());
    if (!(o.timeout_s > 0 && o.timeout_s <= 3600))
        return usage_error(o, "check", {Errc::usage, "--timeout must be between 0 and 3600 seconds"});
    const host::Host host = host::Host::real();
    const auto snap = gpus_and_driver(host, *kb);
    if (gpus->empty()) *gpus = machine_gpus(snap);
    std::optional<Version> driver_cuda = Version::parse(snap.driver.max_cuda);
    std::string python = o.python.value_or("");
    if (python.empty()) {
        // python3 as the shell finds it: the first on PATH.
        for (const auto& dir : text::split(host.env("PATH").value_or("/usr/bin:/bin"), ':'))
            if (!dir.empty() && host.is_executable_file(host::join(dir, "python3"))) {
                python = host::join(dir, "python3");
                break;
            }
        if (python.empty()) return usage_error(o, "check", {Errc::not_found, "no python3 on PATH: give --python"});
    }
    auto check =
        opencv::check_cv2(host, *kb, python, std::chrono::milliseconds(static_cast<long long>(o.timeout_s * 1000)), *gpus, driver_cuda);
    if (!check) return usage_error(o, "check", check.error());
    if (o.json) std::cout << opencv::to_json(*check).dump(2) << "\n";
    else opencv::render_text(*check, std::cout);
    return check->problems() ? ExitStatus::problems : ExitStatus::healthy;
}

void add_common(CLI::App* cmd, OpencvOptions& o, bool root) {
    cmd->add_option("--gpu", o.gpus, "judge for this GPU instead of this machine's: 8.9, sm_86, \"RTX 4090\" (repeatable)")
        ->allow_extra_args(false);
    cmd->add_flag("--json", o.json, "print JSON");
    if (root) cmd->add_option("--root", o.root, "a machine image (a folder laid out like /)");
    cmd->add_option("--kb", o.kb_dir, "read knowledge-base tables from DIR");
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

    auto* log =
        cmd->add_subcommand("log",
                            "read a saved OpenCV CMake configure log (or cv2.getBuildInformation() text) and say what was really enabled");
    log->add_option("file", o->log_file, "the log (cmake … 2>&1 | tee cmake_config.log); - for standard input")->required();
    add_common(log, *o, true);

    auto* check =
        cmd->add_subcommand("check",
                            "ask an installed cv2 (in a child interpreter) what it was built with and whether its CUDA code runs on this GPU");
    check->add_option("--python", o->python, "the interpreter whose cv2 to check (default: python3 on PATH)");
    check->add_option("--timeout", o->timeout_s, "seconds the interpreter may take (default 20)");
    add_common(check, *o, false);

    return {cmd, [o, cmake, log, check]() {
                if (cmake->parsed()) return run_cmake(*o);
                if (log->parsed()) return run_log(*o);
                return run_check(*o);
            }};
}

}  // namespace cudoctor::commands
