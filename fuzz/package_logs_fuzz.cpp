#include <cstdint>
#include <string_view>

#include "formats/package_logs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto& a : cudoctor::formats::parse_dpkg_log(text))
        if (a.package.empty() && a.action.empty()) __builtin_trap();
    for (const auto& t : cudoctor::formats::parse_apt_history(text))
        for (const auto& c : t.changes)
            if (c.package.empty()) __builtin_trap();  // a change always names its package
    return 0;
}
