// POSIX cksum CRC (formats.md 2.4): CRC-32 with polynomial 0x04C11DB7, most significant bit
// first, no reflection, the length appended, the result inverted. zlib's crc32 is the reflected
// variant and gives other values, so this one is written here: slicing-by-8 tables for speed.
#include <array>
#include <cstring>

#include "formats/makeself.hpp"

namespace cudoctor::formats {
namespace {

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables make_tables() {
    Tables t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i << 24;
        for (int k = 0; k < 8; ++k) c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
        t[0][i] = c;
    }
    for (std::size_t k = 1; k < 8; ++k)
        for (std::uint32_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] << 8) ^ t[0][t[k - 1][i] >> 24];
    return t;
}

constexpr Tables kTables = make_tables();

inline std::uint32_t byte_step(std::uint32_t crc, std::uint8_t b) { return (crc << 8) ^ kTables[0][(crc >> 24) ^ b]; }

}  // namespace

std::uint32_t cksum_update(std::uint32_t crc, std::string_view bytes) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
    std::size_t n = bytes.size();
    while (n >= 8) {
        const std::uint32_t hi = (std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3]) ^ crc;
        crc = kTables[7][hi >> 24] ^ kTables[6][(hi >> 16) & 0xff] ^ kTables[5][(hi >> 8) & 0xff] ^ kTables[4][hi & 0xff] ^
              kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^ kTables[0][p[7]];
        p += 8;
        n -= 8;
    }
    while (n--) crc = byte_step(crc, *p++);
    return crc;
}

std::uint32_t cksum_finish(std::uint32_t crc, std::uint64_t length) {
    for (; length; length >>= 8) crc = byte_step(crc, static_cast<std::uint8_t>(length & 0xff));
    return ~crc;
}

}  // namespace cudoctor::formats
