#include "watch/summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/text.hpp"
#include "report/style.hpp"

namespace cudoctor::watch {
namespace {

bool is_driver_report(const std::string& kind) {
    return kind == "xid" || kind == "sxid" || kind == "fallen-off-bus" || kind == "rm-init-failed" || kind == "api-mismatch";
}

/// "0000:01:00" / "00000000:01:00.0" → {domain, bus, device}.
std::optional<std::array<unsigned long, 3>> pci_parts(std::string_view a) {
    auto parts = text::split(a, ':');
    if (parts.size() != 3) return std::nullopt;
    auto device = parts[2].substr(0, parts[2].find('.'));
    std::array<unsigned long, 3> out{};
    std::string_view fields[3] = {parts[0], parts[1], device};
    for (int i = 0; i < 3; ++i) {
        if (fields[i].empty() || fields[i].size() > 8) return std::nullopt;
        try {
            std::size_t used = 0;
            out[i] = std::stoul(std::string(fields[i]), &used, 16);
            if (used != fields[i].size()) return std::nullopt;
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    return out;
}

}  // namespace

bool same_pci(std::string_view a, std::string_view b) {
    auto x = pci_parts(a), y = pci_parts(b);
    return x && y && *x == *y;
}

bool Summary::problems() const {
    for (const auto& s : series)
        if (s.trend.verdict == TrendVerdict::leak) return true;
    return !reports.empty() || !cuda_errors.empty() || (exit && exit->code != 0);
}

Summary summarise(const WatchRecord& record, const XidCatalog& xids, const std::string& dir) {
    Summary s;
    s.dir = dir;
    s.warnings = record.warnings;
    s.kernel_log = record.meta.value("kernel_log", "");
    std::map<std::pair<unsigned, unsigned>, MemorySeries> processes;  // (gpu, pid)
    std::map<unsigned, MemorySeries> gpus;
    std::map<unsigned, GpuRange> ranges;
    std::map<unsigned, std::pair<double, std::size_t>> util;  // sum, count
    std::vector<double> times;
    std::string no_gpu;
    for (const auto& row : record.gpus) {
        times.push_back(row.elapsed);
        const auto& g = row.gpu;
        auto& series = gpus[g.index];
        if (series.label.empty()) {
            series.label = fmt::format("GPU {}{} (all processes)", g.index, g.name.empty() ? "" : " " + g.name);
            series.is_gpu = true;
            series.gpu = g.index;
        }
        if (g.memory_used) series.points.push_back({row.elapsed, static_cast<double>(*g.memory_used)});
        auto& r = ranges[g.index];
        r.index = g.index;
        if (!g.name.empty()) r.name = g.name;
        if (!g.uuid.empty()) r.uuid = g.uuid;
        if (!g.pci.empty()) r.pci = g.pci;
        if (g.memory_total) r.memory_total = g.memory_total;
        auto widen = [](std::optional<unsigned>& lo_or_hi, std::optional<unsigned> v, bool max) {
            if (!v) return;
            if (!lo_or_hi || (max ? *v > *lo_or_hi : *v < *lo_or_hi)) lo_or_hi = v;
        };
        widen(r.temperature_max, g.temperature_c, true);
        widen(r.power_max_mw, g.power_mw, true);
        widen(r.sm_clock_min, g.sm_clock_mhz, false);
        widen(r.sm_clock_max, g.sm_clock_mhz, true);
        if (g.util_gpu) {
            util[g.index].first += *g.util_gpu;
            util[g.index].second += 1;
        }
    }
    for (auto& [index, r] : ranges)
        if (util[index].second)
            r.util_mean = static_cast<unsigned>(std::lround(util[index].first / static_cast<double>(util[index].second)));
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    s.samples = times.size();
    s.duration = times.empty() ? 0 : times.back() - times.front();

    for (const auto& row : record.processes) {
        const auto& p = row.process;
        auto& series = processes[{p.gpu, p.pid}];
        if (series.label.empty()) {
            series.gpu = p.gpu;
            series.pid = p.pid;
        }
        if (!p.name.empty()) {
            series.label = fmt::format("pid {} {} (GPU {})", p.pid, p.name, p.gpu);
            series.name = p.name;
        } else if (series.label.empty()) series.label = fmt::format("pid {} (GPU {})", p.pid, p.gpu);
        if (p.used_memory) series.points.push_back({row.elapsed, static_cast<double>(*p.used_memory)});
    }
    for (auto& [key, series] : processes) {
        series.trend = analyse_memory(series.points);
        s.series.push_back(std::move(series));
    }
    for (auto& [key, series] : gpus) {
        series.trend = analyse_memory(series.points);
        s.series.push_back(std::move(series));
    }
    for (auto& [index, r] : ranges) s.gpus.push_back(r);

    for (const auto& e : record.events) {
        if (is_driver_report(e.kind)) {
            DriverReport report{e, std::nullopt, std::nullopt};
            if (e.kind == "xid")
                if (const auto* info = xids.find(e.code)) report.info = *info;
            for (const auto& g : s.gpus)
                if (!e.gpu.empty() && same_pci(e.gpu, g.pci)) report.gpu = g.index;
            s.reports.push_back(std::move(report));
        } else if (e.kind == "cuda-error") {
            s.cuda_errors.push_back(e);
        } else if (e.kind == "exit") {
            s.exit = e;
        } else if (e.kind == "sample-failed") {
            if (s.failed_samples++ == 0) s.first_failure = e.text;
        } else if (e.kind == "no-gpu-samples") {
            if (no_gpu.empty()) no_gpu = e.text;
        }
    }
    // A record written before the watch said why (or cut short before it could) falls back on
    // the first failed sample.
    if (record.gpus.empty())
        s.no_gpu_samples = !no_gpu.empty()            ? no_gpu
                           : !s.first_failure.empty() ? s.first_failure
                                                      : std::string("the record holds no GPU sample");
    return s;
}

std::string verdict_line(const Summary& s) {
    std::vector<std::string> problems;
    if (!s.reports.empty()) {
        const auto& r = s.reports.front();
        std::string what = r.row.kind == "xid"    ? fmt::format("Xid {}", r.row.code)
                           : r.row.kind == "sxid" ? fmt::format("SXid {}", r.row.code)
                                                  : r.row.kind;
        if (r.gpu) what += fmt::format(" on GPU {}", *r.gpu);
        else if (!r.row.gpu.empty()) what += " on " + r.row.gpu;
        if (r.info) what += ": " + r.info->meaning;
        if (s.reports.size() > 1)
            what += fmt::format(" (and {} more driver report{})", s.reports.size() - 1, s.reports.size() == 2 ? "" : "s");
        problems.push_back(what);
    }
    // The fastest-growing process names the leak; a GPU's own series only when no process grows.
    const MemorySeries* worst = nullptr;
    std::size_t leaks = 0;
    for (const auto& m : s.series) {
        if (m.trend.verdict != TrendVerdict::leak) continue;
        ++leaks;
        if (!worst || (worst->is_gpu && !m.is_gpu) || (worst->is_gpu == m.is_gpu && m.trend.slope > worst->trend.slope)) worst = &m;
    }
    if (worst) {
        const std::string rate = "+" + bytes_text(worst->trend.slope * 3600) + "/h";
        std::string what = worst->is_gpu ? fmt::format("memory grows: GPU {} {}", worst->gpu, rate)
                                         : fmt::format("memory grows: pid {}{} {} on GPU {}", worst->pid,
                                                       worst->name.empty() ? "" : " " + worst->name, rate, worst->gpu);
        problems.push_back(what);
    }
    if (!s.cuda_errors.empty())
        problems.push_back("CUDA error in the command's output: " + s.cuda_errors.front().text +
                           (s.cuda_errors.size() > 1 ? fmt::format(" (and {} more)", s.cuda_errors.size() - 1) : ""));
    if (s.exit && s.exit->code > 0) problems.push_back(fmt::format("the command exited with status {}", s.exit->code));
    if (s.exit && s.exit->code < 0) problems.push_back(fmt::format("the command was ended by signal {}", -s.exit->code));
    if (!problems.empty()) return "✗ " + report::join(problems, "; ");
    if (!s.no_gpu_samples.empty()) return "! no GPU samples: " + s.no_gpu_samples;
    return fmt::format("✓ no memory growth ({} sample{} over {})", s.samples, s.samples == 1 ? "" : "s", clock_text(s.duration));
}

void render_text(const Summary& s, std::ostream& out) {
    // Process names, GPU names, kernel-log lines and paths come from outside: one escape.
    const auto safe = [](std::string_view text) { return report::outside_text(text, report::Medium::terminal); };
    const auto processes = std::count_if(s.series.begin(), s.series.end(), [](const MemorySeries& m) { return !m.is_gpu; });
    out << fmt::format("cudoctor watch: {} of samples ({}), {} GPU{}, {} process{} — {}\n", clock_text(s.duration), s.samples,
                       s.gpus.size(), s.gpus.size() == 1 ? "" : "s", processes, processes == 1 ? "" : "es", safe(s.dir));
    if (!s.no_gpu_samples.empty()) out << "\nno GPU samples: " << safe(s.no_gpu_samples) << "\n";
    if (!s.series.empty() || s.no_gpu_samples.empty()) out << "\nMemory trend\n";
    if (s.series.empty() && s.no_gpu_samples.empty()) out << "  no memory samples\n";
    for (const auto& m : s.series) {
        out << fmt::format("  {:<9} {}\n", to_string(m.trend.verdict), safe(m.label));
        out << fmt::format("            {}\n", describe(m.trend));
        if (m.trend.verdict == TrendVerdict::leak || m.trend.verdict == TrendVerdict::sawtooth)
            out << "            " << m.trend.reason << "\n";
    }
    if (!s.gpus.empty()) out << "\nGPUs\n";
    for (const auto& g : s.gpus) {
        out << fmt::format("  GPU {} {}{}\n", g.index, g.name.empty() ? "(no name)" : safe(g.name),
                           g.pci.empty() ? "" : " at " + safe(g.pci));
        std::vector<std::string> parts;
        if (g.memory_total) parts.push_back(bytes_text(static_cast<double>(*g.memory_total)) + " memory");
        if (g.util_mean) parts.push_back(fmt::format("utilisation {} % on average", *g.util_mean));
        if (g.temperature_max) parts.push_back(fmt::format("up to {} °C", *g.temperature_max));
        if (g.power_max_mw) parts.push_back(fmt::format("up to {:.0f} W", *g.power_max_mw / 1000.0));
        if (g.sm_clock_min && g.sm_clock_max) parts.push_back(fmt::format("SM clock {}–{} MHz", *g.sm_clock_min, *g.sm_clock_max));
        const std::string line = report::join(parts, ", ");
        if (!line.empty()) out << "    " << line << "\n";
    }
    out << "\nDriver reports (" << (s.kernel_log.empty() ? "kernel log" : safe(s.kernel_log)) << ")\n";
    if (s.reports.empty()) out << "  none\n";
    for (const auto& r : s.reports) {
        const auto& e = r.row;
        std::string what = e.kind == "xid" ? fmt::format("Xid {}", e.code) : e.kind == "sxid" ? fmt::format("SXid {}", e.code) : e.kind;
        std::string where = e.gpu.empty() ? "" : " on " + safe(e.gpu) + (r.gpu ? fmt::format(" (GPU {})", *r.gpu) : "");
        std::string meaning = r.info ? r.info->meaning : e.kind == "xid" ? "not in the Xid table" : "";
        out << fmt::format("  {}  {}{}: {}\n", clock_text(e.elapsed), what, where, meaning);
        if (r.info) out << fmt::format("         cause: {}; NVIDIA: {}. {}\n", r.info->cause, r.info->action, r.info->advice);
        if (e.pid) out << fmt::format("         process {}{}\n", *e.pid, e.name.empty() ? "" : " " + safe(e.name));
        out << "         " << safe(e.text) << "\n";
    }
    if (s.exit || !s.cuda_errors.empty()) {
        out << "\nCommand\n";
        if (s.exit) {
            if (s.exit->code >= 0) out << fmt::format("  exited with status {} after {}\n", s.exit->code, clock_text(s.exit->elapsed));
            else out << fmt::format("  ended by signal {} after {}\n", -s.exit->code, clock_text(s.exit->elapsed));
        }
        for (const auto& e : s.cuda_errors) out << fmt::format("  {}  CUDA error: {}\n", clock_text(e.elapsed), safe(e.text));
    }
    // Without a GPU sample the line above says why; the failures would only repeat it.
    if (s.failed_samples && s.no_gpu_samples.empty())
        out << fmt::format("\n{} sample{} failed; the first: {}\n", s.failed_samples, s.failed_samples == 1 ? "" : "s",
                           safe(s.first_failure));
    for (const auto& w : s.warnings) out << "warning: " << safe(w) << "\n";
    out << "\nPlot: " << safe(s.dir) << "/memory.svg\n";
}

nlohmann::json to_json(const Summary& s) {
    nlohmann::json j = {{"dir", s.dir},
                        {"duration_s", s.duration},
                        {"samples", s.samples},
                        {"problems", s.problems()},
                        {"kernel_log", s.kernel_log},
                        {"failed_samples", s.failed_samples},
                        {"warnings", s.warnings},
                        {"no_gpu_samples", s.no_gpu_samples.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.no_gpu_samples)},
                        {"verdict", verdict_line(s)}};
    j["memory"] = nlohmann::json::array();
    for (const auto& m : s.series) {
        const auto& t = m.trend;
        nlohmann::json row = {{"label", m.label},
                              {"kind", m.is_gpu ? "gpu" : "process"},
                              {"gpu", m.gpu},
                              {"verdict", to_string(t.verdict)},
                              {"summary", describe(t)},
                              {"reason", t.reason},
                              {"samples", t.samples},
                              {"slope_bytes_per_hour", t.slope * 3600},
                              {"stderr_bytes_per_hour", t.slope_stderr * 3600},
                              {"ci95_bytes_per_hour", {t.ci_low * 3600, t.ci_high * 3600}},
                              {"robust_slope_bytes_per_hour", t.robust_slope * 3600},
                              {"since_s", t.since},
                              {"drops", t.drops},
                              {"first_bytes", t.first},
                              {"last_bytes", t.last},
                              {"min_bytes", t.low},
                              {"max_bytes", t.high}};
        if (!m.is_gpu) row["pid"] = m.pid;
        j["memory"].push_back(row);
    }
    j["gpus"] = nlohmann::json::array();
    for (const auto& g : s.gpus) {
        nlohmann::json row = {{"index", g.index}, {"name", g.name}, {"uuid", g.uuid}, {"pci", g.pci}};
        if (g.memory_total) row["memory_total_bytes"] = *g.memory_total;
        if (g.util_mean) row["util_mean_pct"] = *g.util_mean;
        if (g.temperature_max) row["temperature_max_c"] = *g.temperature_max;
        if (g.power_max_mw) row["power_max_mw"] = *g.power_max_mw;
        j["gpus"].push_back(row);
    }
    j["driver_reports"] = nlohmann::json::array();
    for (const auto& r : s.reports) {
        nlohmann::json row = {{"kind", r.row.kind}, {"code", r.row.code}, {"elapsed_s", r.row.elapsed},
                              {"time", r.row.time}, {"pci", r.row.gpu},   {"text", r.row.text}};
        if (r.gpu) row["gpu"] = *r.gpu;
        if (r.row.pid) row["pid"] = *r.row.pid;
        if (r.info)
            row["xid"] = {{"mnemonic", r.info->mnemonic},
                          {"meaning", r.info->meaning},
                          {"cause", r.info->cause},
                          {"action", r.info->action},
                          {"advice", r.info->advice}};
        j["driver_reports"].push_back(row);
    }
    j["cuda_errors"] = nlohmann::json::array();
    for (const auto& e : s.cuda_errors) j["cuda_errors"].push_back({{"elapsed_s", e.elapsed}, {"text", e.text}});
    if (s.exit) j["exit"] = {{"status", s.exit->code}, {"elapsed_s", s.exit->elapsed}};
    return j;
}

}  // namespace cudoctor::watch
