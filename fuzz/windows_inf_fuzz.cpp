// libFuzzer target: parse_inf_driver_ver and nvidia_version_of_windows on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/windows_inf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (const auto ver = cudoctor::formats::parse_inf_driver_ver(text)) {
        if (ver->version.empty() || ver->version.size() > size) __builtin_trap();  // an invariant broke
        if (const auto nvidia = cudoctor::formats::nvidia_version_of_windows(ver->version); nvidia && nvidia->size() > 8) __builtin_trap();
    }
    (void)cudoctor::formats::nvidia_version_of_windows(text);
    return 0;
}
