// libFuzzer target: parse_efivar_bool on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/efivar.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto value = cudoctor::formats::parse_efivar_bool(std::string_view(reinterpret_cast<const char*>(data), size));
    if (value ? size < 5 : value.error().message.empty()) __builtin_trap();  // an invariant broke
    return 0;
}
