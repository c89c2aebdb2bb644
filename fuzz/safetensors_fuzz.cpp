// libFuzzer target: parse_safetensors on arbitrary bytes. Every tensor it returns must lie inside
// the input and hold exactly shape × dtype bytes; every error must say what is wrong.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto file = parse_safetensors(bytes);
    if (!file) {
        if (file.error().message.empty()) __builtin_trap();
        return 0;
    }
    for (const auto& t : file->tensors) {
        if (t.data.data() < bytes.data() || t.data.data() + t.data.size() > bytes.data() + bytes.size()) __builtin_trap();
        const auto need = byte_count(t.dtype, t.shape);
        if (!need || *need != t.data.size()) __builtin_trap();
    }
    return 0;
}
