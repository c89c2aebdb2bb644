// libFuzzer target: the fatbin readers on arbitrary bytes — the section walk, the embedded
// search at two alignments and the single-container parse — and their invariants: every
// container and entry lies inside the input, every error has a message.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/fatbin.hpp"

namespace {

void check(const cudoctor::formats::FatbinContainer& c, std::uint64_t base, std::size_t size) {
    if (c.offset < base || c.size < 16 || c.offset - base + c.size > size) __builtin_trap();
    for (const auto& e : c.entries) {
        if (e.offset < c.offset + 16 || e.offset + e.header_size + e.payload_size > c.offset + c.size) __builtin_trap();
        if (cudoctor::formats::target_name(e).empty()) __builtin_trap();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto walk = walk_fatbin_section(bytes, 4096);
    for (const auto& c : walk.containers) check(c, 4096, size);
    if (walk.error && walk.error->message.empty()) __builtin_trap();
    for (std::uint64_t base : {0, 4}) {
        for (const auto& c : find_embedded_fatbins(bytes, base)) {
            check(c, base, size);
            if ((c.offset % 8) != 0) __builtin_trap();  // only 8-aligned positions are containers
        }
    }
    const auto one = parse_fatbin_container(bytes);
    if (one) check(*one, 0, size);
    else if (one.error().message.empty()) __builtin_trap();
    return 0;
}
