// libFuzzer target: parse_sysfs_hex on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/sysfs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto value = cudoctor::formats::parse_sysfs_hex(std::string_view(reinterpret_cast<const char*>(data), size));
    if (value && size < 3) __builtin_trap();  // an invariant broke
    return 0;
}
