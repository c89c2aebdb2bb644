// libFuzzer target: parse_modprobe_conf on arbitrary bytes, then touch every command.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/modprobe_conf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto conf = cudoctor::formats::parse_modprobe_conf(std::string_view(reinterpret_cast<const char*>(data), size));
    std::size_t total = 0;
    for (const auto& m : conf.blacklisted) total += m.size();
    for (const auto& [a, b] : conf.options) total += a.size() + b.size();
    for (const auto& [a, b] : conf.aliases) total += a.size() + b.size();
    for (const auto& [a, b] : conf.installs) total += a.size() + b.size();
    if (total > size) __builtin_trap();  // an invariant broke
    return 0;
}
