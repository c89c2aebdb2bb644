// libFuzzer target: parse_os_release on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/os_release.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto fields = cudoctor::formats::parse_os_release(std::string_view(reinterpret_cast<const char*>(data), size));
    std::size_t total = 0;
    for (const auto& [key, value] : fields) total += key.size() + value.size();
    if (total > size) __builtin_trap();  // an invariant broke
    return 0;
}
