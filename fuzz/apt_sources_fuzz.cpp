// libFuzzer target: the apt sources parsers (one-line and deb822) and the preferences parser on
// arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/apt_sources.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto list = cudoctor::formats::parse_apt_sources_list(text);
    for (const auto& e : list)
        if (e.uri.size() + e.suite.size() > size) __builtin_trap();  // an invariant broke
    const auto deb822 = cudoctor::formats::parse_apt_sources_deb822(text);
    if (deb822.size() > cudoctor::formats::kMaxAptEntries) __builtin_trap();
    const auto prefs = cudoctor::formats::parse_apt_preferences(text);
    if (prefs.size() > cudoctor::formats::kMaxAptEntries) __builtin_trap();
    return 0;
}
