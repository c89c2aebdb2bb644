#pragma once
// Widening every element type the dumps carry to double, exactly: every value of F32, F16,
// BF16, F8 and of the integers up to 2^53 is a double. The loops are written so the compiler
// vectorises them (no branches, unaligned loads through memcpy).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "formats/tensor_view.hpp"

namespace cudoctor::compare {

/// bfloat16 is the upper half of a float32: widening is a shift.
inline float bf16_to_float(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

/// IEEE binary16 to float32, subnormals, infinities and NaN included: the exponent and mantissa
/// bits moved into a float32 and scaled by 2^112 (exact, also for subnormals), the all-ones
/// exponent mapped to float32's.
inline float f16_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t em = h & 0x7fffu;
    const float finite = std::bit_cast<float>(em << 13) * 0x1p112f;
    const float special = std::bit_cast<float>((em << 13) | 0x7f800000u);
    const float magnitude = em >= 0x7c00u ? special : finite;
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(magnitude) | sign);
}

/// float8 e4m3 ("fn": no infinities, S.1111.111 is NaN), bias 7.
float f8_e4m3_to_float(std::uint8_t v);
/// float8 e5m2 (IEEE-like: infinities and NaN), bias 15: the top byte of a binary16.
inline float f8_e5m2_to_float(std::uint8_t v) { return f16_to_float(static_cast<std::uint16_t>(v << 8)); }

/// Widens `count` elements of type `dtype` starting at element `first` of `data` into `out`.
/// The caller guarantees the range lies inside `data`.
void widen(formats::DType dtype, const char* data, std::uint64_t first, std::size_t count, double* out);

}  // namespace cudoctor::compare
