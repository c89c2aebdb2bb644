#pragma once
// The numbers that say how far a tensor computed by a new backend (TEST) is from the reference
// (REF), computed in one pass over both buffers where they lie (memory-mapped), each element
// widened to double in registers, by several threads for large tensors.
#include <cstdint>

#include "compare/read_windows.hpp"
#include "compare/tolerance.hpp"
#include "formats/tensor_view.hpp"

namespace cudoctor::compare {

/// One element named by its flat (row-major) index, with both values.
struct ElementAt {
    std::uint64_t index = 0;
    double test = 0;
    double ref = 0;
};

struct Metrics {
    std::uint64_t numel = 0;
    /// max |test − ref| over the elements where both are finite; `worst` is its first element.
    double max_abs = 0;
    ElementAt worst;
    /// ‖test − ref‖₂ / ‖ref‖₂ over the elements where both are finite (0 when both norms are 0,
    /// infinity when only the reference's is).
    double rel = 0;
    /// max |test − ref| / |ref| over the elements where both are finite and ref ≠ 0.
    double max_rel = 0;
    ElementAt worst_rel;
    /// mean |test − ref| over the elements where both are finite.
    double mean_abs = 0;
    /// Elements that break |test − ref| ≤ atol + rtol·|ref| (a NaN on either side always does;
    /// an infinity only matches the same infinity); for exact tolerances, elements that differ.
    std::uint64_t mismatched = 0;
    std::uint64_t nan_test = 0, nan_ref = 0;
    std::uint64_t inf_test = 0, inf_ref = 0;
};

/// Compares `test` with `ref` element by element. Both must hold the same number of elements
/// (the shapes are the caller's concern; a difference there is a finding, reported before any
/// value is read); the element types may differ (each is widened exactly to double). `threads`
/// 0 means one per CPU; tensors under 256 Ki elements use one. The result does not depend on the
/// number of threads: work is cut into fixed chunks whose partial sums are combined in order
/// with compensated (Neumaier) summation. `windows` (by default one window: the whole tensor)
/// cuts the work into windows of whole chunks, compared one after the other, the caller told
/// of each before and after; the result does not depend on it either.
Metrics compute_metrics(const formats::TensorView& test, const formats::TensorView& ref, const Tolerance& tol, unsigned threads,
                        const ReadWindows& windows = {});

/// The row-major multi-index of flat index `flat` in `shape` ([] for a scalar).
std::vector<std::uint64_t> unravel(std::uint64_t flat, const std::vector<std::uint64_t>& shape);

namespace detail {
/// The instruction sets the metrics kernel is built for; all give the same bits.
enum class Isa { baseline, avx2, avx512 };
/// The best one this CPU runs (the one compute_metrics uses unless told otherwise).
Isa best_isa();
/// For tests: makes compute_metrics use `isa`, or the best this CPU runs where it lacks `isa`;
/// returns the one now used. Not thread-safe against running comparisons.
Isa use_isa(Isa isa);
}  // namespace detail

}  // namespace cudoctor::compare
