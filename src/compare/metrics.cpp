#include "compare/metrics.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "compare/convert.hpp"

namespace cudoctor::compare {
namespace {

using formats::DType;

constexpr std::size_t kBlock = 1024;                      // elements widened at a time (2 × 8 KiB: stays in L1)
constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;  // elements per unit of work (and of partial sums)

// Four doubles at a time, written out with GCC's vector extensions so the loop is vectorised
// without -ffast-math (which would assume NaN away) and sums in a fixed order. (The vectors never
// cross a translation unit, so the psABI note about passing them without AVX does not apply.)
#pragma GCC diagnostic ignored "-Wpsabi"
using V4d = double __attribute__((vector_size(32)));
using V4l = std::int64_t __attribute__((vector_size(32)));

/// Compensated summation: partial sums of very different sizes lose nothing that matters.
struct Neumaier {
    double sum = 0, comp = 0;
    void add(double x) {
        const double t = sum + x;
        comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
        sum = t;
    }
    void add(const Neumaier& o) {
        add(o.sum);
        add(o.comp);
    }
    double value() const { return sum + comp; }
};

struct Partial {
    Neumaier sum_abs, sum_sq_diff, sum_sq_ref;
    double max_abs = -1, max_rel = -1;
    ElementAt worst, worst_rel;
    std::uint64_t mismatched = 0, nan_test = 0, nan_ref = 0, inf_test = 0, inf_ref = 0, nonfinite = 0;
};

struct BlockResult {
    double sum_abs = 0, sum_sq_diff = 0, sum_sq_ref = 0, max_abs = -1, max_rel = -1;
    std::uint64_t mismatched = 0, nan_test = 0, nan_ref = 0, inf_test = 0, inf_ref = 0, nonfinite = 0;
};

// Always inlined: a separate function would be built for the baseline target and called from
// the AVX2 clone, and at -O0 (the sanitizer build) that call passed the vector wrongly.
[[gnu::always_inline]] inline V4d vabs(V4d x) {
    constexpr std::int64_t kMask = 0x7fffffffffffffffLL;
    return reinterpret_cast<V4d>(reinterpret_cast<V4l>(x) & V4l{kMask, kMask, kMask, kMask});
}

/// The per-element rule, once for the vector loop and once for finding an element again.
inline double abs_diff(double a, double b, bool& finite) {
    finite = std::isfinite(a) && std::isfinite(b);
    return finite ? std::fabs(a - b) : 0.0;
}
inline double rel_diff(double ad, double b) { return std::fabs(b) > 0 ? ad / std::fabs(b) : 0.0; }

/// `n` is a multiple of 4 (the caller pads with zeros, which change no sum, maximum or count).
/// Built twice, for AVX2 and for the x86-64 baseline, the right one chosen at load time: the
/// same operations in the same order, so both give the same bits.
__attribute__((target_clones("avx2", "default"))) BlockResult block_kernel(const double* t, const double* r, std::size_t n, double rtol,
                                                                           double atol) {
    const V4d zero{0, 0, 0, 0}, inf = zero + std::numeric_limits<double>::infinity();
    V4d s_abs = zero, s_dd = zero, s_rr = zero, m_abs = zero - 1, m_rel = zero - 1;
    V4l c_mis{}, c_nt{}, c_nr{}, c_it{}, c_ir{}, c_nf{};
    for (std::size_t i = 0; i < n; i += 4) {
        V4d a, b;
        std::memcpy(&a, t + i, sizeof a);
        std::memcpy(&b, r + i, sizeof b);
        const V4l nan_a = a != a, nan_b = b != b;  // NOLINT(misc-redundant-expression): x != x is true exactly in NaN lanes
        const V4d aa = vabs(a), ab = vabs(b);
        const V4l inf_a = aa == inf, inf_b = ab == inf;
        const V4l finite = ~(nan_a | nan_b | inf_a | inf_b);
        const V4d d = finite ? a - b : zero;
        const V4d ad = vabs(d);
        s_abs += ad;
        s_dd += d * d;
        s_rr += finite ? b * b : zero;
        m_abs = ad > m_abs ? ad : m_abs;
        const V4d rel = ab > zero ? ad / ab : zero;
        m_rel = rel > m_rel ? rel : m_rel;
        const V4l ok = finite ? (ad <= atol + rtol * ab) : (a == b);
        c_mis -= ~ok;  // a true mask is -1
        c_nt -= nan_a;
        c_nr -= nan_b;
        c_it -= inf_a;
        c_ir -= inf_b;
        c_nf -= ~finite;
    }
    BlockResult out;
    out.sum_abs = (s_abs[0] + s_abs[1]) + (s_abs[2] + s_abs[3]);
    out.sum_sq_diff = (s_dd[0] + s_dd[1]) + (s_dd[2] + s_dd[3]);
    out.sum_sq_ref = (s_rr[0] + s_rr[1]) + (s_rr[2] + s_rr[3]);
    for (int l = 0; l < 4; ++l) {
        out.max_abs = std::max(out.max_abs, m_abs[l]);
        out.max_rel = std::max(out.max_rel, m_rel[l]);
        out.mismatched += static_cast<std::uint64_t>(c_mis[l]);
        out.nan_test += static_cast<std::uint64_t>(c_nt[l]);
        out.nan_ref += static_cast<std::uint64_t>(c_nr[l]);
        out.inf_test += static_cast<std::uint64_t>(c_it[l]);
        out.inf_ref += static_cast<std::uint64_t>(c_ir[l]);
        out.nonfinite += static_cast<std::uint64_t>(c_nf[l]);
    }
    return out;
}

/// 64-bit integers past 2^53 are not all doubles: for them, exactness is decided on the bits.
std::uint64_t raw_mismatches(const char* t, const char* r, std::uint64_t first, std::size_t count) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < count; ++i) n += std::memcmp(t + (first + i) * 8, r + (first + i) * 8, 8) != 0;
    return n;
}

struct Job {
    const formats::TensorView& test;
    const formats::TensorView& ref;
    Tolerance tol;
    bool raw_exact;
};

Partial run_chunk(const Job& job, std::uint64_t begin, std::uint64_t end) {
    Partial p;
    alignas(64) double tb[kBlock], rb[kBlock];
    for (std::uint64_t at = begin; at < end; at += kBlock) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end - at));
        widen(job.test.dtype, job.test.data.data(), at, n, tb);
        widen(job.ref.dtype, job.ref.data.data(), at, n, rb);
        const std::size_t padded = (n + 3) & ~std::size_t{3};
        std::fill(tb + n, tb + padded, 0.0);
        std::fill(rb + n, rb + padded, 0.0);
        BlockResult b = block_kernel(tb, rb, padded, job.tol.rtol, job.tol.atol);
        if (job.raw_exact) b.mismatched = raw_mismatches(job.test.data.data(), job.ref.data.data(), at, n);
        p.sum_abs.add(b.sum_abs);
        p.sum_sq_diff.add(b.sum_sq_diff);
        p.sum_sq_ref.add(b.sum_sq_ref);
        p.mismatched += b.mismatched;
        p.nan_test += b.nan_test;
        p.nan_ref += b.nan_ref;
        p.inf_test += b.inf_test;
        p.inf_ref += b.inf_ref;
        p.nonfinite += b.nonfinite;
        // A new maximum: find its first element in this block (rare after the first blocks).
        if (b.max_abs > p.max_abs) {
            p.max_abs = b.max_abs;
            for (std::size_t i = 0; i < n; ++i) {
                bool finite = false;
                if (abs_diff(tb[i], rb[i], finite) == b.max_abs) {
                    p.worst = {at + i, tb[i], rb[i]};
                    break;
                }
            }
        }
        if (b.max_rel > p.max_rel) {
            p.max_rel = b.max_rel;
            for (std::size_t i = 0; i < n; ++i) {
                bool finite = false;
                if (rel_diff(abs_diff(tb[i], rb[i], finite), rb[i]) == b.max_rel) {
                    p.worst_rel = {at + i, tb[i], rb[i]};
                    break;
                }
            }
        }
    }
    return p;
}

void merge(Partial& into, const Partial& p) {
    into.sum_abs.add(p.sum_abs);
    into.sum_sq_diff.add(p.sum_sq_diff);
    into.sum_sq_ref.add(p.sum_sq_ref);
    into.mismatched += p.mismatched;
    into.nan_test += p.nan_test;
    into.nan_ref += p.nan_ref;
    into.inf_test += p.inf_test;
    into.inf_ref += p.inf_ref;
    into.nonfinite += p.nonfinite;
    if (p.max_abs > into.max_abs) {
        into.max_abs = p.max_abs;
        into.worst = p.worst;
    }
    if (p.max_rel > into.max_rel) {
        into.max_rel = p.max_rel;
        into.worst_rel = p.worst_rel;
    }
}

}  // namespace

Metrics compute_metrics(const formats::TensorView& test, const formats::TensorView& ref, const Tolerance& tol, unsigned threads) {
    const std::uint64_t numel = std::min(test.numel(), ref.numel());
    const bool wide_ints = (test.dtype == DType::i64 || test.dtype == DType::u64) && test.dtype == ref.dtype;
    const Job job{test, ref, tol, tol.exact && wide_ints};
    const std::uint64_t chunks = (numel + kChunk - 1) / kChunk;
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    if (numel < 4 * kChunk) threads = 1;
    threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, chunks));

    Partial total;
    if (threads <= 1) {
        for (std::uint64_t c = 0; c < chunks; ++c) merge(total, run_chunk(job, c * kChunk, std::min(numel, (c + 1) * kChunk)));
    } else {
        std::vector<Partial> partials(static_cast<std::size_t>(chunks));
        std::atomic<std::uint64_t> next{0};
        const auto worker = [&] {
            for (std::uint64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;)
                partials[static_cast<std::size_t>(c)] = run_chunk(job, c * kChunk, std::min(numel, (c + 1) * kChunk));
        };
        std::vector<std::thread> pool;
        for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
        worker();
        for (auto& t : pool) t.join();
        for (const auto& p : partials) merge(total, p);  // in chunk order: the same sums for any thread count
    }

    Metrics m;
    m.numel = numel;
    m.max_abs = std::max(total.max_abs, 0.0);
    m.worst = total.worst;
    m.max_rel = std::max(total.max_rel, 0.0);
    m.worst_rel = total.worst_rel;
    const std::uint64_t finite = numel - total.nonfinite;
    m.mean_abs = finite ? total.sum_abs.value() / static_cast<double>(finite) : 0.0;
    const double diff_norm = std::sqrt(total.sum_sq_diff.value()), ref_norm = std::sqrt(total.sum_sq_ref.value());
    m.rel = ref_norm > 0 ? diff_norm / ref_norm : diff_norm > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    m.mismatched = total.mismatched;
    m.nan_test = total.nan_test;
    m.nan_ref = total.nan_ref;
    m.inf_test = total.inf_test;
    m.inf_ref = total.inf_ref;
    return m;
}

std::vector<std::uint64_t> unravel(std::uint64_t flat, const std::vector<std::uint64_t>& shape) {
    std::vector<std::uint64_t> index(shape.size(), 0);
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return index;  // an empty tensor has no element
    for (std::size_t i = shape.size(); i-- > 0;) {
        index[i] = flat % shape[i];
        flat /= shape[i];
    }
    return index;
}

}  // namespace cudoctor::compare
