#include <cstdint>
#include <string_view>

#include "formats/shell_wrapper.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto target = cudoctor::formats::wrapper_exec_target(std::string_view(reinterpret_cast<const char*>(data), size));
    if (target && target->empty()) __builtin_trap();  // a target is never empty
    return 0;
}
