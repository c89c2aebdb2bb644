// libFuzzer target: detect_file_kind, text_excerpt and parse_ar_member_header on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/file_kind.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto kind = detect_file_kind(bytes);
    if (std::string_view(to_string(kind)).empty() || std::string_view(describe(kind)).empty()) __builtin_trap();
    if ((kind == FileKind::empty) != bytes.empty()) __builtin_trap();
    if (text_excerpt(bytes).size() > 400) __builtin_trap();  // 120 printable characters at most, UTF-8 aside
    const auto member = parse_ar_member_header(bytes);
    if (!member && member.error().message.empty()) __builtin_trap();
    if (member && bytes.size() < kArMemberHeaderSize) __builtin_trap();
    return 0;
}
