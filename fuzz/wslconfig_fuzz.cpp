// libFuzzer target: parse_wslconfig_memory on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/wslconfig.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (const auto limit = cudoctor::formats::parse_wslconfig_memory(text)) {
        if (limit->line == 0 || limit->text.size() > 64) __builtin_trap();  // an invariant broke
    }
    return 0;
}
