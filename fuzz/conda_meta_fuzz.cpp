// Fuzzes formats/conda_meta.hpp.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/conda_meta.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (auto p = cudoctor::formats::parse_conda_meta(text); p && p->name.empty()) __builtin_trap();
    return 0;
}
