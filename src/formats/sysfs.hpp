#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

/// Small sysfs attribute files.
namespace cudoctor::formats {

/// A sysfs hex attribute: "0x10de\n" → 0x10de, "0x030000\n" → 0x030000. Digits in either case,
/// leading zeros allowed, trailing whitespace ignored. nullopt for anything else: empty text,
/// no "0x", no digits, a non-hex byte, leading whitespace, or a value above 0xffffffff.
std::optional<std::uint32_t> parse_sysfs_hex(std::string_view text);

}  // namespace cudoctor::formats
