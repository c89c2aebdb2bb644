// libFuzzer target: text::printable, the escape every error line of text from outside goes
// through (and the rule report::outside_text shares: text::terminal_refuses). Whatever the bytes,
// the result is well-formed UTF-8 with no C0/C1 control byte, DEL or bidi override, and at most
// `max` bytes of the input's worth plus the cut mark.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::text;
    if (size == 0) return 0;
    const std::size_t max = data[0];  // the first byte chooses the cut: 0…255
    const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::string out = printable(in, max);
    const std::string_view mark = "…";
    std::string_view body = out;
    if (in.size() > max) {
        if (!body.ends_with(mark)) __builtin_trap();
        body.remove_suffix(mark.size());
    }
    if (body.size() > max) __builtin_trap();
    for (std::size_t i = 0; i < body.size();) {
        const auto u = static_cast<unsigned char>(body[i]);
        if (u < 0x20 || u == 0x7f) __builtin_trap();
        const std::size_t len = utf8_length(body, i);
        if (len == 0) __builtin_trap();                               // never invalid UTF-8
        if (terminal_refuses(body.substr(i, len))) __builtin_trap();  // never C1 or a bidi override
        i += len;
    }
    return 0;
}
