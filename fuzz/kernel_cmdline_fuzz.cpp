// libFuzzer target: parse_kernel_cmdline on arbitrary bytes, then ask about a few modules.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/kernel_cmdline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const auto tokens = parse_kernel_cmdline(std::string_view(reinterpret_cast<const char*>(data), size));
    std::size_t total = 0;
    for (const auto& t : tokens) {
        if (t.empty() && size == 0) __builtin_trap();
        total += t.size();
    }
    total += cmdline_blacklists(tokens, "nouveau") ? 1 : 0;
    total += cmdline_blacklists(tokens, "nvidia-drm") ? 1 : 0;
    total += cmdline_blacklists(tokens, "") ? 1 : 0;
    if (total > size + 3) __builtin_trap();  // an invariant broke
    return 0;
}
