// libFuzzer target: parse_ld_so_cache on arbitrary bytes, then touch every entry.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/ld_so_cache.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const auto cache = parse_ld_so_cache(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!cache) {
        if (cache.error().message.empty()) __builtin_trap();  // every error says what is wrong
        return 0;
    }
    std::size_t total = std::string_view(to_string(cache->format)).size() + cache->generator.size();
    for (const auto& e : cache->entries) {
        total += ld_cache_entry_line(e).size() + ld_cache_arch_name(e.flags).size();
        total += ld_cache_is_native(e.flags) ? 1 : 0;
    }
    if (total == 0 && !cache->entries.empty()) __builtin_trap();  // an invariant broke
    return 0;
}
