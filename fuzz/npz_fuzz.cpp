// libFuzzer target: the .npz path of `compare` on arbitrary bytes — the zip central directory,
// each member stored (a view) or inflated (with a small cap: a forged size must not allocate),
// then parsed as .npy.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/npy.hpp"
#include "formats/npz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto entries = read_zip_directory(bytes);
    if (!entries) {
        if (entries.error().message.empty()) __builtin_trap();
        return 0;
    }
    for (const auto& e : *entries) {
        if (e.data_offset > bytes.size() || e.compressed_size > bytes.size() - e.data_offset) __builtin_trap();
        if (e.method == 0) {
            const auto m = stored_member(bytes, e);
            if (m) (void)parse_npy(*m);
        } else {
            const auto m = inflate_member(bytes, e, 1u << 24);
            if (m) {
                if (m->size() != e.uncompressed_size) __builtin_trap();
                (void)parse_npy(*m);
            } else if (m.error().message.empty()) {
                __builtin_trap();
            }
        }
    }
    return 0;
}
