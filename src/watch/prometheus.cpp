#include "watch/prometheus.hpp"

#include <map>
#include <tuple>

#include "report/metrics.hpp"
#include "report/prometheus.hpp"

namespace cudoctor::watch {
namespace {

constexpr double kSecondsPerHour = 3600.0;

std::string uuid_of(const Summary& s, unsigned gpu) {
    for (const auto& g : s.gpus)
        if (g.index == gpu) return g.uuid;
    return "";
}

}  // namespace

void render_prometheus(const Summary& s, std::ostream& out) {
    namespace metric = report::metric;
    report::MetricWriter writer(out);

    writer.begin(metric::gpu_memory_used);
    for (const auto& m : s.series)
        if (m.is_gpu && !m.points.empty()) writer.sample({std::to_string(m.gpu), uuid_of(s, m.gpu)}, m.points.back().y);

    // Reports of a GPU the watch did not sample keep the address the driver named.
    std::map<std::tuple<std::string, std::string, int>, int> xids;
    for (const auto& r : s.reports)
        if (r.row.kind == "xid")
            ++xids[r.gpu ? std::make_tuple(std::to_string(*r.gpu), uuid_of(s, *r.gpu), r.row.code)
                         : std::make_tuple(r.row.gpu, std::string(), r.row.code)];
    writer.begin(metric::xid_events);
    for (const auto& [key, count] : xids) writer.sample({std::get<0>(key), std::get<1>(key), std::to_string(std::get<2>(key))}, count);

    auto pid_of = [](const MemorySeries& m) { return m.is_gpu ? std::string() : std::to_string(m.pid); };
    writer.begin(metric::memory_trend);
    for (const auto& m : s.series)
        if (m.trend.verdict != TrendVerdict::too_short) writer.sample({std::to_string(m.gpu), pid_of(m)}, m.trend.slope * kSecondsPerHour);
    writer.begin(metric::memory_leak);
    for (const auto& m : s.series)
        if (m.trend.verdict != TrendVerdict::too_short)
            writer.sample({std::to_string(m.gpu), pid_of(m)}, m.trend.verdict == TrendVerdict::leak ? 1 : 0);

    writer.begin(metric::cuda_errors);
    writer.sample({}, static_cast<double>(s.cuda_errors.size()));
}

}  // namespace cudoctor::watch
