#include "watch/watcher.hpp"

#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <ctime>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/duration.hpp"
#include "common/text.hpp"
#include "driver/library_search.hpp"
#include "driver/nvml_sample.hpp"
#include "report/style.hpp"
#include "watch/kernel_follower.hpp"
#include "watch/launched.hpp"
#include "watch/sample_log.hpp"
#include "watch/status_line.hpp"
#include "watch/trend.hpp"

namespace cudoctor::watch {
namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_stop_signal(int) { g_stop = 1; }

/// SIGINT/SIGTERM/SIGHUP set g_stop (without SA_RESTART, so waits wake up); restored at the end.
class StopSignals {
  public:
    StopSignals() {
        g_stop = 0;
        struct sigaction sa {};
        sa.sa_handler = on_stop_signal;
        sigemptyset(&sa.sa_mask);
        for (std::size_t i = 0; i < 3; ++i) ::sigaction(kSignals[i], &sa, &m_old[i]);
    }
    ~StopSignals() {
        for (std::size_t i = 0; i < 3; ++i) ::sigaction(kSignals[i], &m_old[i], nullptr);
    }

  private:
    static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction m_old[3];
};

std::string iso_time(std::chrono::system_clock::time_point t) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    ::gmtime_r(&secs, &tm);
    return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                       tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
}

/// The parent pid of each running process, from /proc/N/stat (the field after the name).
std::map<unsigned, unsigned> parents(const host::Host& host) {
    std::map<unsigned, unsigned> out;
    auto entries = host.list_dir("/proc");
    if (!entries) return out;
    for (const auto& name : *entries) {
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos || name.size() > 9) continue;
        auto stat = host.read_file("/proc/" + name + "/stat", 4096);
        if (!stat) continue;
        auto close = stat->rfind(')');
        if (close == std::string::npos) continue;
        auto fields = text::split(std::string_view(*stat).substr(close + 1), ' ');
        if (fields.size() < 3) continue;
        try {
            out[static_cast<unsigned>(std::stoul(name))] = static_cast<unsigned>(std::stoul(std::string(fields[2])));
        } catch (const std::exception&) {}
    }
    return out;
}

/// `root` and every process below it.
std::set<unsigned> family(const host::Host& host, unsigned root) {
    std::set<unsigned> out = {root};
    const auto parent = parents(host);
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& [pid, ppid] : parent)
            if (out.contains(ppid) && out.insert(pid).second) grew = true;
    }
    return out;
}

std::string process_name(const host::Host& host, unsigned pid) {
    auto comm = host.read_file("/proc/" + std::to_string(pid) + "/comm", 256);
    return comm ? std::string(text::trim(*comm)) : std::string();
}

}  // namespace

Expected<std::chrono::milliseconds> parse_duration(std::string_view text) {
    const auto d = cudoctor::parse_duration(text::trim(text));
    if (!d || *d < std::chrono::milliseconds(1) || *d > std::chrono::hours(366 * 24))
        return fail(Errc::usage, "'" + text::printable(text) + "' is not a duration from 1ms to 366d (10s, 250ms, 5m, 1h30m, 1.5h, 1d)");
    return *d;
}

std::string no_gpu_reason(const Reading& r, const NvmlSearch& search) {
    if (!r.gpus.empty()) return {};
    const std::string why = r.tried.empty() ? "" : " (" + r.tried.back() + ")";
    if (r.library.empty()) {
        std::string s = "no libnvidia-ml.so.1 could be loaded: ";
        if (!search.rooted) return s + "no NVIDIA driver here" + (search.the_override ? ", nor in " + *search.the_override : "") + why;
        s += "under --root an image's libraries are never loaded";
        if (search.the_override) return s + ", and none loads from " + *search.the_override + why;
        if (search.any_candidate) return s + ", and this computer has none" + why;
        return s + " (CUDOCTOR_DRIVER_LIBRARY_PATH may name a folder of this computer that holds one)";
    }
    if (r.init_result && *r.init_result != 0) return "NVML init failed (" + r.library + "): " + r.trouble;
    if (!r.trouble.empty()) return "NVML (" + r.library + ") gave no answer: " + r.trouble;
    return "NVML (" + r.library + ") sees no GPU";
}

Expected<WatchEnd> run_watch(const host::Host& host, const WatchOptions& o) {
    using clock = std::chrono::steady_clock;
    if (o.pid && !host.exists("/proc/" + std::to_string(*o.pid))) return fail(Errc::usage, fmt::format("no process {} is running", *o.pid));
    const auto start_wall = std::chrono::system_clock::now();
    const auto start = clock::now();
    const auto start_epoch = std::chrono::duration_cast<std::chrono::seconds>(start_wall.time_since_epoch()).count();
    auto kernel = KernelFollower::open(host, o.kernel_log, start_epoch);

    nlohmann::json meta = {{"tool", "cudoctor watch"},   {"version", CUDOCTOR_VERSION},       {"start", iso_time(start_wall)},
                           {"start_epoch", start_epoch}, {"interval_ms", o.interval.count()}, {"kernel_log", kernel.description()}};
    if (o.duration) meta["duration_ms"] = o.duration->count();
    if (o.clock_step) meta["override"] = fmt::format("CUDOCTOR_OVERRIDE_WATCH_STEP={}ms", o.clock_step->count());
    if (o.pid) meta["pid"] = *o.pid;
    if (!o.command.empty()) meta["command"] = o.command;
    if (auto active = driver::active_override()) meta["library_override"] = *active;
    auto log = SampleLog::create(o.out_dir, meta);
    if (!log) return Unexpected<Error>(log.error());

    StopSignals signals;
    std::optional<LaunchedCommand> command;
    if (!o.command.empty()) {
        auto started = LaunchedCommand::start(o.command, o.out_dir + "/command.log", o.echo_fd, o.extra_env);
        if (!started) return Unexpected<Error>(started.error());
        command.emplace(std::move(*started));
    }
    const bool filtered = o.pid || command;  // only this process and its children
    const unsigned root_pid = o.pid ? *o.pid : command ? static_cast<unsigned>(command->pid()) : 0;

    const auto candidates = driver::driver_library_candidates(host, "libnvidia-ml.so.1");
    const NvmlSearch search{host.is_rooted(), !candidates.empty(), driver::active_override()};
    std::string told;           // the reason for no GPU last written and told ("" while GPUs answer)
    bool status_drawn = false;  // a status line is on the screen
    WatchEnd end;
    std::size_t reports = 0;
    std::map<unsigned, std::string> names;
    auto elapsed_of = [&](std::size_t k, clock::time_point now) {
        return o.clock_step ? static_cast<double>(k) * static_cast<double>(o.clock_step->count()) / 1000.0
                            : std::chrono::duration<double>(now - start).count();
    };
    auto time_of = [&](double elapsed) {
        return iso_time(start_wall + std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(elapsed)));
    };
    auto write_event = [&](const EventRow& e) -> Expected<void> { return log->event(e); };
    auto cuda_errors = [&](const std::vector<CudaErrorLine>& lines) -> Expected<void> {
        for (const auto& l : lines) {
            const double at = o.clock_step ? elapsed_of(end.samples, clock::now()) : std::chrono::duration<double>(l.when - start).count();
            if (auto w = write_event(
                    {at, time_of(at), "cuda-error", 0, "", command ? std::optional<long>(command->pid()) : std::nullopt, "", l.text});
                !w)
                return w;
        }
        return {};
    };
    auto kernel_events = [&](double at, bool force) -> Expected<void> {
        for (const auto& e : kernel.poll(force)) {
            ++reports;
            const std::string text = e.kind == formats::KernelEventKind::xid ? fmt::format("Xid {}: {}", e.code, e.message) : e.message;
            if (auto w = write_event({at, time_of(at), formats::to_string(e.kind), e.code, e.pci, e.pid, e.process, text}); !w) return w;
        }
        return {};
    };

    for (std::size_t k = 0;; ++k) {
        const double elapsed = elapsed_of(k, clock::now());
        if (o.duration && elapsed * 1000.0 > static_cast<double>(o.duration->count()) + 0.5) {
            end.why = "duration reached";
            break;
        }
        const std::string now_text = time_of(elapsed);
        auto reading = driver::sample_nvml(candidates, o.sample_timeout);
        if (!reading) return Unexpected<Error>(reading.error());
        std::set<unsigned> wanted;
        if (filtered) wanted = family(host, root_pid);
        std::vector<ProcessReading> kept;
        for (auto& p : reading->processes) {
            if (filtered && !wanted.contains(p.pid)) continue;
            auto it = names.find(p.pid);
            if (it == names.end()) it = names.emplace(p.pid, process_name(host, p.pid)).first;
            p.name = it->second;
            kept.push_back(p);
        }
        reading->processes = std::move(kept);
        for (const auto& g : reading->gpus)
            if (auto w = log->gpu(elapsed, now_text, g); !w) return Unexpected<Error>(w.error());
        for (const auto& p : reading->processes)
            if (auto w = log->process(elapsed, now_text, p); !w) return Unexpected<Error>(w.error());
        if (!reading->trouble.empty())
            if (auto w = write_event({elapsed, now_text, "sample-failed", 0, "", std::nullopt, "", reading->trouble}); !w)
                return Unexpected<Error>(w.error());
        // Why there is nothing to see, once (and again when the reason changes): in the record
        // for `watch report`, and on the screen now.
        if (const auto why = no_gpu_reason(*reading, search); why != told) {
            told = why;
            if (!why.empty()) {
                if (auto w = write_event({elapsed, now_text, "no-gpu-samples", 0, "", std::nullopt, "", why}); !w)
                    return Unexpected<Error>(w.error());
                if (o.note) {
                    if (status_drawn) std::cerr << "\r\x1b[K" << std::flush;
                    o.note("no GPU samples: " + why);
                }
            }
        }
        ++end.samples;
        if (auto w = kernel_events(elapsed, false); !w) return Unexpected<Error>(w.error());
        if (o.live_status) {
            // One column short of the width: a line that fills the last column wraps on some terminals.
            const std::size_t width = terminal_width(STDERR_FILENO);
            std::cerr << "\r" << status_line(elapsed, *reading, end.samples, reports, width > 1 ? width - 1 : 1) << "\x1b[K" << std::flush;
            status_drawn = true;
        }

        if (o.pid && !host.exists("/proc/" + std::to_string(*o.pid))) {
            end.why = fmt::format("process {} ended", *o.pid);
            break;
        }
        const auto deadline = start + o.interval * static_cast<long long>(k + 1);
        do {  // the command's output is moved at least once per sample, even when sampling ran late
            if (command) {
                if (auto w = cuda_errors(command->pump(deadline)); !w) return Unexpected<Error>(w.error());
                if (command->finished()) break;
            } else if (clock::now() < deadline) {
                std::this_thread::sleep_for(std::min<clock::duration>(deadline - clock::now(), std::chrono::milliseconds(100)));
            }
        } while (!g_stop && clock::now() < deadline);
        if (g_stop) {
            end.interrupted = true;
            end.why = "interrupted";
            break;
        }
        if (command && command->finished()) {
            end.why = "command exited";
            break;
        }
    }
    if (o.live_status) std::cerr << "\r\x1b[K" << std::flush;
    const double final_elapsed = elapsed_of(end.samples, clock::now());
    if (command) {
        command->stop(std::chrono::seconds(5));
        if (auto w = cuda_errors(command->pump(clock::now())); !w) return Unexpected<Error>(w.error());
        const int status = command->status().value_or(-9);
        const std::string text = status >= 0 ? fmt::format("exited with status {}", status) : fmt::format("ended by signal {}", -status);
        if (auto w = write_event({final_elapsed, time_of(final_elapsed), "exit", status, "", command->pid(), o.command.front(), text}); !w)
            return Unexpected<Error>(w.error());
    }
    if (auto w = kernel_events(final_elapsed, true); !w) return Unexpected<Error>(w.error());
    return end;
}

}  // namespace cudoctor::watch
