#pragma once
// The one bounds-checked way the binary parsers (ELF, fatbin) read their input: every offset and
// length is checked against the end before a byte is touched, and sums are checked for overflow
// (a hostile 64-bit size must not wrap around to a small one). Little-endian only: ELF64 LE and
// fatbins have no other variant in practice.
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace cudoctor::formats {

static_assert(std::endian::native == std::endian::little, "the binary readers assume a little-endian host");

/// a + b, or nullopt when the sum does not fit in 64 bits.
inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
    std::uint64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
    return sum;
}

/// a * b, or nullopt when the product does not fit in 64 bits.
inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
    std::uint64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
    return product;
}

/// A read-only view of bytes (often a memory-mapped file: only the pages read are touched).
/// Every accessor answers nullopt when the range does not lie wholly inside the view.
class ByteReader {
  public:
    explicit ByteReader(std::string_view bytes) : m_bytes(bytes) {}

    std::uint64_t size() const { return m_bytes.size(); }
    std::string_view bytes() const { return m_bytes; }

    /// True when [offset, offset + length) lies inside the view (no overflow).
    bool contains(std::uint64_t offset, std::uint64_t length) const {
        return offset <= m_bytes.size() && length <= m_bytes.size() - offset;
    }

    /// The bytes [offset, offset + length), or nullopt past the end.
    std::optional<std::string_view> range(std::uint64_t offset, std::uint64_t length) const {
        if (!contains(offset, length)) return std::nullopt;
        return m_bytes.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
    }

    std::optional<std::uint16_t> u16(std::uint64_t offset) const { return load<std::uint16_t>(offset); }
    std::optional<std::uint32_t> u32(std::uint64_t offset) const { return load<std::uint32_t>(offset); }
    std::optional<std::uint64_t> u64(std::uint64_t offset) const { return load<std::uint64_t>(offset); }

  private:
    template <class T>
    std::optional<T> load(std::uint64_t offset) const {
        if (!contains(offset, sizeof(T))) return std::nullopt;
        T value;
        std::memcpy(&value, m_bytes.data() + offset, sizeof(T));  // unaligned-safe; the hosts are little-endian
        return value;
    }

    std::string_view m_bytes;
};

}  // namespace cudoctor::formats
