#pragma once
// The precision a tensor's values were computed in, read from the values themselves. numpy has
// no bfloat16, so a bf16 run is usually saved widened to float32 (`.float().numpy()`): every
// element then has the low 16 bits of its float32 zero. Comparing that against a float32
// reference at float32's tolerance fails every layer on bf16's rounding alone.
#include <optional>

#include "compare/read_windows.hpp"
#include "formats/tensor_view.hpp"

namespace cudoctor::compare {

/// For an F32 tensor whose every element is a bfloat16 (or else an IEEE half) value, and at
/// least one of them is not an integer (integer-valued tensors — indices, masks — fit any
/// type and prove nothing): that narrower type. nullopt otherwise (other element types, an
/// empty tensor, or values that need float32). Reads the elements window by window (`windows`,
/// in elements; by default all at once) and stops at the first that fits neither type.
std::optional<formats::DType> narrower_values(const formats::TensorView& t, const ReadWindows& windows = {});

}  // namespace cudoctor::compare
