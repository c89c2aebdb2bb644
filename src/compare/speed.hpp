#pragma once
// Per-layer speed beside per-layer error: when both dumps carry a layer trace with timings
// (tools/record_layers.py), each layer's time on each side, their ratio, the layers that got
// slower than a threshold, the whole forward pass; and in each dump the layers that ran on
// another device than the rest (a fallback, usually to the CPU).
#include <optional>
#include <string>
#include <vector>

#include "compare/matching.hpp"
#include "formats/layer_trace.hpp"

namespace cudoctor::compare {

/// The default threshold: TEST slower than 1.5× REF names the layer.
inline constexpr double kDefaultSlowerRatio = 1.5;

struct LayerSpeed {
    std::string name;       ///< REF's call name
    std::string test_name;  ///< TEST's (differs when mapped)
    std::string type;       ///< REF's module type
    double ref_ms = 0, test_ms = 0;
    bool slower = false;  ///< ratio() > the threshold
    /// TEST / REF; infinity when REF took 0 ms and TEST did not, 1 when both took 0.
    double ratio() const;
};

struct OffDevice {
    std::string side;     ///< "REF" or "TEST"
    std::string layer;    ///< the call name
    std::string devices;  ///< what it touched: "cpu" or "cpu,cuda:0"
    std::string usual;    ///< what most layers of that dump touched
};

struct Speed {
    bool available = false;  ///< both traces carry timings
    bool traced = false;     ///< at least one dump carries a layer trace
    /// Why there are no times when not available ("TEST has no layer trace"), "" when available.
    std::string missing;
    double threshold = kDefaultSlowerRatio;
    std::string ref_clock, test_clock;
    unsigned ref_repeat = 0, test_repeat = 0;
    std::vector<LayerSpeed> layers;   ///< REF's order; only layers timed on both sides
    std::optional<LayerSpeed> total;  ///< the model's own call ("output"): the whole forward pass
    std::vector<OffDevice> off_device;

    std::size_t slower_count() const;
};

/// Pairs REF's timed layers with TEST's through `map` (the same renames as the tensors) and
/// judges each against `threshold`. Either trace may be absent (nullptr): then `missing` says
/// which, and only the off-device layers of the one present are listed.
Speed measure_speed(const formats::LayerTrace* ref, const formats::LayerTrace* test, const NameMap& map, double threshold);

/// The layers of one dump whose devices differ from what most of its layers touched (layers that
/// touched no tensor are not counted). None when every layer agrees.
std::vector<OffDevice> off_device_layers(const formats::LayerTrace& trace, const std::string& side);

}  // namespace cudoctor::compare
