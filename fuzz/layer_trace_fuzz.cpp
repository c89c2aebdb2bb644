// libFuzzer target: parse_layer_trace on arbitrary bytes. A trace it accepts has layers of
// distinct, non-empty names and non-negative finite times; every error says what is wrong.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>

#include "formats/layer_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto trace = parse_layer_trace(text);
    if (!trace) {
        if (trace.error().message.empty()) __builtin_trap();
        return 0;
    }
    std::set<std::string_view> names;
    for (const auto& l : trace->layers) {
        if (l.name.empty() || !names.insert(l.name).second) __builtin_trap();
        if (l.time_ms && (!(*l.time_ms >= 0) || !std::isfinite(*l.time_ms))) __builtin_trap();
        for (const auto& op : l.ops)
            if (op.name.empty()) __builtin_trap();
    }
    return 0;
}
