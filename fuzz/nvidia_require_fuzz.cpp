// libFuzzer target: parse_nvidia_require on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/nvidia_require.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto alternatives = cudoctor::formats::parse_nvidia_require(std::string_view(reinterpret_cast<const char*>(data), size));
    std::size_t total = 0;
    for (const auto& conditions : alternatives) {
        if (conditions.empty()) __builtin_trap();  // empty alternatives are skipped
        for (const auto& c : conditions) total += c.key.size() + c.op.size() + c.value.size();
    }
    if (total > size) __builtin_trap();  // an invariant broke
    return 0;
}
