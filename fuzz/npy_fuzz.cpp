// libFuzzer target: parse_npy on arbitrary bytes. An array it returns must lie inside the input
// and hold exactly shape × dtype bytes; every error must say what is wrong.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto t = parse_npy(bytes);
    if (!t) {
        if (t.error().message.empty()) __builtin_trap();
        return 0;
    }
    if (t->data.data() < bytes.data() || t->data.data() + t->data.size() > bytes.data() + bytes.size()) __builtin_trap();
    const auto need = byte_count(t->dtype, t->shape);
    if (!need || *need != t->data.size()) __builtin_trap();
    return 0;
}
