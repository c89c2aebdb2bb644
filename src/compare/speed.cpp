#include "compare/speed.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace cudoctor::compare {

double LayerSpeed::ratio() const {
    if (ref_ms > 0) return test_ms / ref_ms;
    return test_ms > 0 ? std::numeric_limits<double>::infinity() : 1.0;
}

std::size_t Speed::slower_count() const {
    return static_cast<std::size_t>(std::count_if(layers.begin(), layers.end(), [](const auto& l) { return l.slower; }));
}

namespace {

std::string joined(const std::vector<std::string>& devices) {
    std::string s;
    for (const auto& d : devices) s += (s.empty() ? "" : ",") + d;
    return s;
}

}  // namespace

std::vector<OffDevice> off_device_layers(const formats::LayerTrace& trace, const std::string& side) {
    // The most common device set, the first seen winning a tie.
    std::vector<std::pair<std::string, std::size_t>> tally;
    for (const auto& l : trace.layers) {
        if (l.devices.empty()) continue;
        const std::string d = joined(l.devices);
        auto it = std::find_if(tally.begin(), tally.end(), [&d](const auto& p) { return p.first == d; });
        if (it == tally.end()) tally.emplace_back(d, 1);
        else ++it->second;
    }
    std::vector<OffDevice> out;
    if (tally.size() < 2) return out;
    const std::string usual =
        std::max_element(tally.begin(), tally.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
    for (const auto& l : trace.layers)
        if (!l.devices.empty() && joined(l.devices) != usual) out.push_back({side, l.name, joined(l.devices), usual});
    return out;
}

Speed measure_speed(const formats::LayerTrace* ref, const formats::LayerTrace* test, const NameMap& map, double threshold) {
    Speed s;
    s.threshold = threshold;
    s.traced = ref || test;
    if (ref) s.off_device = off_device_layers(*ref, "REF");
    if (test)
        for (auto& o : off_device_layers(*test, "TEST")) s.off_device.push_back(std::move(o));
    if (!ref || !test) {
        s.missing = !ref && !test ? "neither dump has a layer trace" : std::string(!ref ? "REF" : "TEST") + " has no layer trace";
        return s;
    }
    if (!ref->timed() || !test->timed()) {
        s.missing =
            !ref->timed() && !test->timed() ? "neither dump has timings" : std::string(!ref->timed() ? "REF" : "TEST") + " has no timings";
        return s;
    }
    s.available = true;
    s.ref_clock = ref->clock;
    s.test_clock = test->clock;
    s.ref_repeat = ref->repeat;
    s.test_repeat = test->repeat;
    for (const auto& r : ref->layers) {
        if (!r.time_ms) continue;
        const std::string test_name = map.to_test(r.name);
        const auto* t = test->find(test_name);
        if (!t || !t->time_ms) continue;
        LayerSpeed l{r.name, test_name, r.type, *r.time_ms, *t->time_ms};
        l.slower = l.ratio() > threshold;
        if (r.name == "output") s.total = l;
        s.layers.push_back(std::move(l));
    }
    return s;
}

}  // namespace cudoctor::compare
