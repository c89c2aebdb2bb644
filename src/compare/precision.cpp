#include "compare/precision.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace cudoctor::compare {
namespace {

/// Exactly representable as an IEEE binary16: 11 significant bits for normal values (exponent
/// −14…15), fewer for subnormals (down to 2^−24). Infinities and NaN are representable.
bool fits_half(float v) {
    if (!std::isfinite(v) || v == 0.0f) return true;
    int e = 0;
    const float m = std::frexp(std::fabs(v), &e);  // v = m·2^e, m in [0.5, 1)
    const int exponent = e - 1;                    // v = 1.xxx·2^exponent
    if (exponent > 15 || exponent < -24) return false;
    const int bits = exponent >= -14 ? 11 : 11 - (-14 - exponent);
    const float scaled = std::ldexp(m, bits);
    return scaled == std::floor(scaled);
}

}  // namespace

std::optional<formats::DType> narrower_values(const formats::TensorView& t, const ReadWindows& windows) {
    if (t.dtype != formats::DType::f32) return std::nullopt;
    const std::size_t n = t.data.size() / sizeof(std::uint32_t);
    if (n == 0) return std::nullopt;
    const std::size_t step = windows.bytes ? std::max<std::size_t>(1, windows.bytes / sizeof(std::uint32_t)) : n;
    bool bf16 = true, half = true, fraction = false;
    for (std::size_t begin = 0; begin < n && (bf16 || half); begin += step) {
        const std::size_t end = std::min(n, begin + step);
        if (windows.ahead) windows.ahead(begin, end);
        std::size_t i = begin;
        for (; i < end && (bf16 || half); ++i) {
            std::uint32_t bits = 0;
            std::memcpy(&bits, t.data.data() + i * sizeof bits, sizeof bits);
            const float v = std::bit_cast<float>(bits);
            if (bf16 && (bits & 0xffffu) != 0) bf16 = false;
            if (half && !fits_half(v)) half = false;
            if (!fraction && std::isfinite(v) && v != std::trunc(v)) fraction = true;
        }
        if (windows.done) windows.done(begin, i);
    }
    if (!fraction) return std::nullopt;
    if (bf16) return formats::DType::bf16;
    if (half) return formats::DType::f16;
    return std::nullopt;
}

}  // namespace cudoctor::compare
