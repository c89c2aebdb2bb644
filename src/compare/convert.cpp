#include "compare/convert.hpp"

#include <array>
#include <cmath>
#include <limits>

namespace cudoctor::compare {
namespace {

template <class T>
T load(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
}

template <class T>
void widen_plain(const char* data, std::uint64_t first, std::size_t count, double* out) {
    const char* p = data + first * sizeof(T);
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<double>(load<T>(p + i * sizeof(T)));
}

const std::array<float, 256>& e4m3_table() {
    static const std::array<float, 256> table = [] {
        std::array<float, 256> t{};
        for (int v = 0; v < 256; ++v) {
            const int exp = (v >> 3) & 0xf, mant = v & 7;
            float mag = exp == 0 ? std::ldexp(static_cast<float>(mant), -9) : std::ldexp(1.0f + static_cast<float>(mant) / 8.0f, exp - 7);
            if (exp == 0xf && mant == 7) mag = std::numeric_limits<float>::quiet_NaN();
            t[static_cast<std::size_t>(v)] = (v & 0x80) ? -mag : mag;
        }
        return t;
    }();
    return table;
}

}  // namespace

float f8_e4m3_to_float(std::uint8_t v) { return e4m3_table()[v]; }

__attribute__((target_clones("avx2", "default"))) void widen(formats::DType dtype, const char* data, std::uint64_t first, std::size_t count,
                                                             double* out) {
    using formats::DType;
    switch (dtype) {
        case DType::f64: return widen_plain<double>(data, first, count, out);
        case DType::f32: return widen_plain<float>(data, first, count, out);
        case DType::f16: {
            const char* p = data + first * 2;
            for (std::size_t i = 0; i < count; ++i) out[i] = f16_to_float(load<std::uint16_t>(p + i * 2));
            return;
        }
        case DType::bf16: {
            const char* p = data + first * 2;
            for (std::size_t i = 0; i < count; ++i) out[i] = bf16_to_float(load<std::uint16_t>(p + i * 2));
            return;
        }
        case DType::f8_e4m3: {
            const auto& table = e4m3_table();
            const auto* p = reinterpret_cast<const std::uint8_t*>(data + first);
            for (std::size_t i = 0; i < count; ++i) out[i] = table[p[i]];
            return;
        }
        case DType::f8_e5m2: {
            const auto* p = reinterpret_cast<const std::uint8_t*>(data + first);
            for (std::size_t i = 0; i < count; ++i) out[i] = f8_e5m2_to_float(p[i]);
            return;
        }
        case DType::i8: return widen_plain<std::int8_t>(data, first, count, out);
        case DType::i16: return widen_plain<std::int16_t>(data, first, count, out);
        case DType::i32: return widen_plain<std::int32_t>(data, first, count, out);
        case DType::i64: return widen_plain<std::int64_t>(data, first, count, out);
        case DType::u8: return widen_plain<std::uint8_t>(data, first, count, out);
        case DType::u16: return widen_plain<std::uint16_t>(data, first, count, out);
        case DType::u32: return widen_plain<std::uint32_t>(data, first, count, out);
        case DType::u64: return widen_plain<std::uint64_t>(data, first, count, out);
        case DType::boolean: {
            // NumPy and torch write 0 or 1; any other byte is still "true".
            const auto* p = reinterpret_cast<const std::uint8_t*>(data + first);
            for (std::size_t i = 0; i < count; ++i) out[i] = p[i] != 0 ? 1.0 : 0.0;
            return;
        }
    }
}

}  // namespace cudoctor::compare
