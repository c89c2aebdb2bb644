// libFuzzer target: parse_dpkg_status on arbitrary bytes, then touch every package.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/dpkg_status.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto packages = cudoctor::formats::parse_dpkg_status(std::string_view(reinterpret_cast<const char*>(data), size));
    std::size_t total = 0;
    for (const auto& p : packages) {
        if (p.name.empty()) __builtin_trap();
        total += p.name.size() + p.version.size() + p.architecture.size() + p.source.size() + (p.installed() ? 1 : 0);
    }
    if (total > 2 * size) __builtin_trap();  // an invariant broke
    return 0;
}
