// libFuzzer target: parse_makeself_header on arbitrary bytes (whole and partial), plus the
// cksum helpers; every error must say what is wrong, every header must be self-consistent.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/makeself.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    (void)cksum_finish(cksum_update(0, bytes), size);
    for (bool whole : {true, false}) {
        const auto h = parse_makeself_header(bytes, whole);
        if (!h) {
            if (h.error().message.empty()) __builtin_trap();
            continue;
        }
        // The payload starts after the header, inside what was given, and sizes add up.
        if (h->payload_offset > bytes.size() || h->payloads.empty()) __builtin_trap();
        std::uint64_t at = h->payload_offset;
        for (const auto& p : h->payloads) {
            if (p.offset != at) __builtin_trap();
            if (p.md5 && p.md5->size() != 32) __builtin_trap();
            if (p.sha256 && p.sha256->size() != 64) __builtin_trap();
            if (p.size) at += *p.size;
        }
        if (std::string_view(to_string(h->compression)).empty() || std::string_view(to_string(h->family)).empty()) __builtin_trap();
    }
    return 0;
}
