#include "host/resources.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "common/text.hpp"

namespace cudoctor::host {
namespace {

std::optional<unsigned> to_uint(std::string_view s) {
    unsigned v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

constexpr std::uint64_t kKibPerJob = kBytesPerNvccJob >> 10;

}  // namespace

std::optional<unsigned> count_cpu_list(std::string_view list) {
    list = text::trim(list);
    if (list.empty()) return std::nullopt;
    std::uint64_t count = 0;
    for (auto part : text::split(list, ',')) {
        part = text::trim(part);
        const auto dash = part.find('-');
        if (dash == std::string_view::npos) {
            if (!to_uint(part)) return std::nullopt;
            ++count;
        } else {
            auto lo = to_uint(part.substr(0, dash));
            auto hi = to_uint(part.substr(dash + 1));
            if (!lo || !hi || *hi < *lo) return std::nullopt;
            count += static_cast<std::uint64_t>(*hi) - *lo + 1;
        }
        if (count > 65536) return std::nullopt;
    }
    return static_cast<unsigned>(count);
}

std::optional<std::uint64_t> meminfo_kib(std::string_view meminfo, std::string_view field) {
    for (auto line : text::lines(meminfo)) {
        if (!line.starts_with(field) || line.size() <= field.size() || line[field.size()] != ':') continue;
        auto rest = text::trim(line.substr(field.size() + 1));
        const auto space = rest.find(' ');
        const auto number = rest.substr(0, space);
        std::uint64_t v = 0;
        auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
        if (ec != std::errc() || p != number.data() + number.size()) return std::nullopt;
        return v;
    }
    return std::nullopt;
}

BuildResources read_build_resources(const host::Host& host) {
    BuildResources r;
    if (auto meminfo = host.read_file("/proc/meminfo", 1 << 20)) {
        if (auto v = meminfo_kib(*meminfo, "MemAvailable")) {
            r.mem_available_kib = v;
            r.mem_source = "MemAvailable";
        } else if (auto t = meminfo_kib(*meminfo, "MemTotal")) {
            r.mem_available_kib = t;
            r.mem_source = "MemTotal";
        }
    }
    if (auto online = host.read_file("/sys/devices/system/cpu/online", 4096)) {
        if (auto n = count_cpu_list(*online); n && *n > 0) {
            r.cores = n;
            r.cores_source = "/sys/devices/system/cpu/online";
        }
    }
    if (!r.cores) {
        if (auto cpuinfo = host.read_file("/proc/cpuinfo", 8 << 20)) {
            unsigned n = 0;
            for (auto line : text::lines(*cpuinfo))
                if (line.starts_with("processor") && text::contains(line, ":")) ++n;
            if (n > 0) {
                r.cores = n;
                r.cores_source = "/proc/cpuinfo";
            }
        }
    }
    return r;
}

unsigned parallel_jobs(const BuildResources& r, std::string& why) {
    const unsigned cores = r.cores.value_or(1);
    unsigned by_memory = cores;
    if (r.mem_available_kib) {
        const std::uint64_t jobs = *r.mem_available_kib / kKibPerJob;
        by_memory = static_cast<unsigned>(std::min<std::uint64_t>(std::max<std::uint64_t>(jobs, 1), 65536));
    }
    const unsigned jobs = std::max(1u, std::min(cores, by_memory));
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.1f", r.mem_available_kib ? static_cast<double>(*r.mem_available_kib) / (1024.0 * 1024.0) : 0.0);
    why = (r.cores ? std::to_string(cores) + " cores" : std::string("cores unknown")) + ", " +
          (r.mem_available_kib
               ? std::string(gib) + " GiB " + (r.mem_source == "MemAvailable" ? "available" : "total") + " memory / 3 GiB per nvcc job"
               : std::string("memory unknown (no /proc/meminfo)"));
    return jobs;
}

}  // namespace cudoctor::host
