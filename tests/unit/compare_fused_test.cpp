// The fused metrics kernel (each element widened to double in registers, AVX-512 where the CPU
// has it, the tensor read in windows whose pages are given back) against the path it replaced
// (every block widened into a buffer first, then a four-wide kernel), kept here verbatim: every
// number bit for bit, for every pair of element types, sizes around every block and chunk
// boundary, NaN, infinities and subnormals, any thread count, window size and instruction set;
// and on the whole compare test corpus (dumps written by NumPy and torch), text and JSON
// output included.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <thread>

#include "compare/compare.hpp"
#include "compare/convert.hpp"
#include "compare/metrics.hpp"
#include "compare/precision.hpp"
#include "compare/report.hpp"
#include "host/mapped_file.hpp"

// In a namespace of its own (see compare_metrics_test.cpp: the unity build).
namespace compare_fused_test {

using namespace cudoctor;
using namespace cudoctor::compare;
using formats::DType;
using formats::TensorView;

/// compute_metrics as it was before the fused kernel (src/compare/metrics.cpp at 2b57b71).
namespace unfused {

using formats::DType;

constexpr std::size_t kBlock = 1024;                      // elements widened at a time (2 × 8 KiB: stays in L1)
constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;  // elements per unit of work (and of partial sums)

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

}  // namespace unfused

namespace {

bool same_bits(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

::testing::AssertionResult same_metrics(const Metrics& a, const Metrics& b) {
    const auto el = [](const ElementAt& x, const ElementAt& y) {
        return x.index == y.index && same_bits(x.test, y.test) && same_bits(x.ref, y.ref);
    };
    std::ostringstream why;
    if (a.numel != b.numel) why << " numel";
    if (!same_bits(a.max_abs, b.max_abs)) why << " max_abs";
    if (!el(a.worst, b.worst)) why << " worst";
    if (!same_bits(a.rel, b.rel)) why << " rel " << a.rel << " vs " << b.rel;
    if (!same_bits(a.max_rel, b.max_rel)) why << " max_rel";
    if (!el(a.worst_rel, b.worst_rel)) why << " worst_rel";
    if (!same_bits(a.mean_abs, b.mean_abs)) why << " mean_abs";
    if (a.mismatched != b.mismatched) why << " mismatched";
    if (a.nan_test != b.nan_test || a.nan_ref != b.nan_ref || a.inf_test != b.inf_test || a.inf_ref != b.inf_ref) why << " counts";
    if (why.str().empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "differ in" << why.str();
}

/// A float32 (its bits) as binary16, truncated: out of range to ±0 or ±infinity, NaN kept.
std::uint16_t to_half(std::uint32_t bits) {
    const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const int exponent = static_cast<int>((bits >> 23) & 0xffu) - 127 + 15;
    if (((bits >> 23) & 0xffu) == 0xffu) return static_cast<std::uint16_t>(sign | 0x7c00u | ((bits & 0x7fffffu) ? 0x200u : 0u));
    if (exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (exponent <= 0) return sign;
    return static_cast<std::uint16_t>(sign | (exponent << 10) | ((bits >> 13) & 0x3ffu));
}

/// `n` elements of `dtype` near `base` (perturbed when `perturb`), with NaN, infinities, zeros
/// of both signs, subnormals, huge values and, for the narrow types, random bit patterns.
std::string make_values(DType dtype, const std::vector<double>& base, bool perturb, std::mt19937_64& gen) {
    const std::size_t size = formats::dtype_size(dtype);
    std::string bytes(base.size() * size, '\0');
    std::uniform_real_distribution<double> u(0, 1);
    for (std::size_t i = 0; i < base.size(); ++i) {
        double v = perturb ? base[i] * (1 + 1e-3 * (u(gen) - 0.5)) : base[i];
        const double pick = u(gen);
        if (pick < 0.002) v = std::numeric_limits<double>::quiet_NaN();
        else if (pick < 0.004) v = pick < 0.003 ? HUGE_VAL : -HUGE_VAL;
        else if (pick < 0.02) v = pick < 0.01 ? 0.0 : -0.0;
        else if (pick < 0.022) v = 1e-40;
        else if (pick < 0.023) v = 3e38;
        char* p = bytes.data() + i * size;
        const bool random_bits = u(gen) < 0.02;
        switch (dtype) {
            case DType::f64: std::memcpy(p, &v, 8); break;
            case DType::f32: {
                const auto f = static_cast<float>(v);
                std::memcpy(p, &f, 4);
                break;
            }
            case DType::f16:
            case DType::bf16: {
                const auto f = static_cast<float>(v);
                std::uint32_t bits = 0;
                std::memcpy(&bits, &f, 4);
                auto h = static_cast<std::uint16_t>(bits >> 16);  // bf16 (truncated)
                if (dtype == DType::f16) h = to_half(bits);
                if (random_bits) h = static_cast<std::uint16_t>(gen());
                std::memcpy(p, &h, 2);
                break;
            }
            case DType::i32: {
                const auto x = std::isfinite(v) && std::fabs(v) < 1e7 ? static_cast<std::int32_t>(v * 100) : 7;
                std::memcpy(p, &x, 4);
                break;
            }
            case DType::i64: {
                const auto x = std::isfinite(v) && std::fabs(v) < 1e1 ? static_cast<std::int64_t>(v * 1e17) : 7;
                std::memcpy(p, &x, 8);
                break;
            }
            default: {
                const auto x = static_cast<std::uint8_t>(gen());
                std::memcpy(p, &x, 1);
            }
        }
    }
    return bytes;
}

std::vector<detail::Isa> isas() {
    std::vector<detail::Isa> out{detail::Isa::baseline};
    if (static_cast<int>(detail::best_isa()) >= static_cast<int>(detail::Isa::avx2)) out.push_back(detail::Isa::avx2);
    if (detail::best_isa() == detail::Isa::avx512) out.push_back(detail::Isa::avx512);
    return out;
}

/// Restores the best instruction set when a test ends, whatever it set.
struct BestIsaAfter {
    ~BestIsaAfter() { detail::use_isa(detail::best_isa()); }
};

}  // namespace

TEST(CompareFused, EveryTypePairSizeThreadCountWindowAndIsaGivesTheOldBits) {
    const BestIsaAfter restore;
    const DType types[] = {DType::f64, DType::f32, DType::f16,     DType::bf16,   DType::i32,
                           DType::i64, DType::u8,  DType::f8_e4m3, DType::boolean};
    std::mt19937_64 gen(2026);
    std::normal_distribution<double> normal;
    std::size_t runs = 0;
    for (std::size_t n : {0ul, 1ul, 3ul, 7ul, 8ul, 9ul, 1023ul, 1024ul, 1025ul, 65537ul, 4 * 65536ul + 13}) {
        std::vector<double> base(n);
        for (auto& v : base) v = normal(gen) * (normal(gen) > 2 ? 1e4 : 1);
        for (DType tt : types)
            for (DType rt : types) {
                const bool floats = formats::is_floating(tt) && formats::is_floating(rt);
                if (n > 70000 && !(floats && (tt == rt || tt == DType::f32))) continue;  // the large sizes: the fused pairs
                const std::string ts = make_values(tt, base, true, gen), rs = make_values(rt, base, false, gen);
                const TensorView test{"t", tt, {n}, ts}, ref{"r", rt, {n}, rs};
                for (const Tolerance& tol :
                     {default_tolerance(tt, rt), Tolerance{0, 0, 0, true, false}, Tolerance{1e-2, 1e-3, 1e-2, false, false}}) {
                    const Metrics want = unfused::compute_metrics(test, ref, tol, 1);
                    for (const auto isa : isas()) {
                        detail::use_isa(isa);
                        for (const unsigned threads : {1u, 3u}) {
                            ReadWindows windows;
                            windows.bytes = threads == 3 ? 300'000 : 0;
                            ++runs;
                            EXPECT_TRUE(same_metrics(compute_metrics(test, ref, tol, threads, windows), want))
                                << formats::dtype_name(tt) << "/" << formats::dtype_name(rt) << " n=" << n << " isa "
                                << static_cast<int>(isa) << " threads " << threads << " exact " << tol.exact << " rtol " << tol.rtol;
                        }
                        // Read through copies (as pread gives them), one chunk in two refused
                        // (read from the view instead): the same bits.
                        std::atomic<std::size_t> copies{0}, refusals{0};
                        const auto reader = [&copies, &refusals](const TensorView& v) {
                            return [&copies, &refusals, &v](std::uint64_t begin, std::uint64_t end, char* to) {
                                if ((begin / 65536) % 2 == 1) {
                                    ++refusals;
                                    return false;
                                }
                                const std::size_t size = formats::dtype_size(v.dtype);
                                std::memcpy(to, v.data.data() + begin * size, static_cast<std::size_t>((end - begin) * size));
                                ++copies;
                                return true;
                            };
                        };
                        ReadWindows windows;
                        windows.bytes = 300'000;
                        windows.read = reader(test);
                        windows.read_ref = reader(ref);
                        ++runs;
                        EXPECT_TRUE(same_metrics(compute_metrics(test, ref, tol, 2, windows), want))
                            << formats::dtype_name(tt) << "/" << formats::dtype_name(rt) << " n=" << n << " isa " << static_cast<int>(isa)
                            << " read through copies";
                        if (n > 0) {
                            EXPECT_GT(copies.load(), 0u);
                        }
                        if (n > 65536) {
                            EXPECT_GT(refusals.load(), 0u);
                        }
                    }
                }
            }
    }
    EXPECT_GT(runs, 1000u);
}

TEST(CompareFused, TheRelativeMaximumIsFoundWhereItGrowsLateAndInEveryLane) {
    // The quotient |d|/|ref| is only computed where it can beat the maximum so far: a maximum
    // that grows element by element (every quotient a new maximum), ties, and a new maximum
    // in the last lane of the last block must all come out as before.
    const BestIsaAfter restore;
    std::vector<double> ref(300'000), test(ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ref[i] = 1.0 + static_cast<double>(i % 7);
        test[i] = ref[i] * (1 + 1e-9 * static_cast<double>(i));  // grows with i
    }
    test.back() = ref.back() * 3;
    std::vector<double> ties(ref.size(), 2.0), tie_test(ref.size(), 2.5);
    const auto view = [](const std::vector<double>& v) {
        return TensorView{"x", DType::f64, {v.size()}, std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * 8)};
    };
    const Tolerance tol = default_tolerance(DType::f64);
    for (const auto isa : isas()) {
        detail::use_isa(isa);
        EXPECT_TRUE(same_metrics(compute_metrics(view(test), view(ref), tol, 2), unfused::compute_metrics(view(test), view(ref), tol, 1)));
        const Metrics t = compute_metrics(view(tie_test), view(ties), tol, 2);
        EXPECT_TRUE(same_metrics(t, unfused::compute_metrics(view(tie_test), view(ties), tol, 1)));
        EXPECT_EQ(t.worst_rel.index, 0u);
    }
}

TEST(CompareFused, TheToleranceRuleIsNeverFusedIntoOneRounding) {
    // |d| <= atol + rtol·|ref| is NumPy's rule: rtol·|ref| rounded, then the sum rounded. An
    // instruction set with FMA (AVX-512 has it) would round once, and the compiler contracts
    // `atol + rtol * x` into it unless told not to: a |d| that equals one of the two roundings
    // then matches under one rule and not the other. These pairs are all such |d|, under
    // tolerances where the two roundings differ often and ref - |d| is exact (|d| > |ref| / 2,
    // and no finer than ref's last place), so |d| is the value the kernel compares.
    const BestIsaAfter restore;
    Tolerance tol;
    tol.rtol = 1.3;
    tol.atol = 0.3;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> pick(1.0, 2.0);
    std::vector<double> ref, test;
    std::uint64_t numpy_mismatches = 0;
    for (int tries = 0; ref.size() < 3 * 2048 + 5 && tries < 1'000'000; ++tries) {  // whole block pairs and a short block
        const double b = pick(rng);
        volatile double product = tol.rtol * b;  // rounded on its own, as NumPy does
        const double unfused = tol.atol + product, fused = std::fma(tol.rtol, b, tol.atol);
        if (unfused == fused) continue;
        const double d = std::max(unfused, fused), a = b - d;
        if (std::fabs(a - b) != d) continue;
        ref.push_back(b);
        test.push_back(a);
        numpy_mismatches += !(d <= unfused);
    }
    ASSERT_EQ(ref.size(), 3 * 2048 + 5);
    ASSERT_GT(numpy_mismatches, 0u);
    ASSERT_LT(numpy_mismatches, ref.size());  // both outcomes are in the set
    const auto view = [](const std::vector<double>& v) {
        return TensorView{"x", DType::f64, {v.size()}, std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * 8)};
    };
    for (const auto isa : isas()) {
        SCOPED_TRACE(static_cast<int>(isa));
        detail::use_isa(isa);
        EXPECT_EQ(compute_metrics(view(test), view(ref), tol, 1).mismatched, numpy_mismatches);
    }
}

TEST(CompareFused, WindowsCoverEveryElementOnceInOrderAndAreReadAhead) {
    std::vector<float> ref(1'000'003, 1.0f), test(ref.size(), 1.5f);
    const TensorView a{"t", DType::f32, {test.size()}, std::string_view(reinterpret_cast<const char*>(test.data()), test.size() * 4)};
    const TensorView b{"r", DType::f32, {ref.size()}, std::string_view(reinterpret_cast<const char*>(ref.data()), ref.size() * 4)};
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ahead, done;
    ReadWindows w;
    w.bytes = 1 << 20;  // 4 chunks of 64 Ki float32 elements
    w.ahead = [&](std::uint64_t begin, std::uint64_t end) { ahead.emplace_back(begin, end); };
    w.done = [&](std::uint64_t begin, std::uint64_t end) {
        // The window being given back was announced, and the next one too before it was compared.
        EXPECT_FALSE(ahead.empty());
        EXPECT_GE(ahead.back().first, begin);
        done.emplace_back(begin, end);
    };
    const Metrics m = compute_metrics(a, b, default_tolerance(DType::f32), 2, w);
    EXPECT_EQ(m.mismatched, ref.size());
    ASSERT_EQ(done.size(), 4u);  // 16 chunks (the last one short) in windows of 4
    EXPECT_EQ(done, ahead);
    for (std::size_t i = 0; i < done.size(); ++i) {
        EXPECT_EQ(done[i].first, i ? done[i - 1].second : 0);
        EXPECT_EQ(done[i].second - done[i].first, i + 1 < done.size() ? 4 * 65536u : ref.size() - 3 * 4 * 65536u);
    }
    // Both sides copied (pread): nothing is mapped, so the chunks are one window, the same numbers.
    const Metrics windowed = m;
    ReadWindows copied = w;
    const auto copy_of = [](const std::vector<float>& v) {
        return [&v](std::uint64_t begin, std::uint64_t end, char* to) {
            std::memcpy(to, v.data() + begin, (end - begin) * sizeof(float));
            return true;
        };
    };
    copied.read = copy_of(test);
    copied.read_ref = copy_of(ref);
    done.clear();
    ahead.clear();
    EXPECT_TRUE(same_metrics(compute_metrics(a, b, default_tolerance(DType::f32), 2, copied), windowed));
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0], (std::pair<std::uint64_t, std::uint64_t>{0, ref.size()}));
    // The precision scan reads in the same windows, and gives the same answer.
    std::vector<float> bf16_values(ref.size(), 1.5f);
    const TensorView v{"v", DType::f32, {ref.size()}, std::string_view(reinterpret_cast<const char*>(bf16_values.data()), ref.size() * 4)};
    done.clear();
    ahead.clear();
    EXPECT_EQ(narrower_values(v, w), DType::bf16);
    EXPECT_EQ(done.size(), 4u);
    EXPECT_EQ(narrower_values(v), DType::bf16);
}

namespace {

/// The resident size (kB) of the mapping that holds `address`, from /proc/self/smaps; -1 when
/// not found.
long resident_kb(const void* address) {
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<std::uintptr_t>(address);
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {  // a mapping's first line; the others start "Rss:" …
            inside = at >= lo && at < hi;
            continue;
        }
        if (inside && line.starts_with("Rss:")) return std::stol(line.substr(4));
    }
    return -1;
}

/// A safetensors file of one F32 tensor "x" of `values`.
std::string write_safetensors(const std::filesystem::path& path, const std::vector<float>& values) {
    std::string header = R"({"x":{"dtype":"F32","shape":[)" + std::to_string(values.size()) + R"(],"data_offsets":[0,)" +
                         std::to_string(values.size() * 4) + "]}}";
    header.resize((header.size() + 7) / 8 * 8, ' ');
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t length = header.size();
    out.write(reinterpret_cast<const char*>(&length), 8);
    out << header;
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
    return path.string();
}

}  // namespace

TEST(CompareFused, AComparedTensorsPagesAreGivenBackAndReadAgainIntact) {
    const auto dir = std::filesystem::temp_directory_path() / ("cudoctor-fused-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::vector<float> ref(10'000'000), test(ref.size());  // 40 MB a side: three windows
    std::mt19937 gen(3);
    std::normal_distribution<float> normal;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ref[i] = normal(gen);
        test[i] = ref[i] * (1 + 1e-6f * normal(gen));
    }
    const auto host = host::Host::real();
    auto ref_dump = Dump::open(host, write_safetensors(dir / "ref.safetensors", ref));
    auto test_dump = Dump::open(host, write_safetensors(dir / "test.safetensors", test));
    ASSERT_TRUE(ref_dump && test_dump);
    const char* ref_data = ref_dump->tensors()[0].data.data();
    const Comparison c = compare_dumps(*ref_dump, *test_dump, {});
    ASSERT_EQ(c.results.size(), 1u);
    // Everything compared was given back: at most the header's page stays mapped.
    EXPECT_LE(resident_kb(ref_data), 4);
    EXPECT_LE(resident_kb(test_dump->tensors()[0].data.data()), 4);
    // Read again, the same bytes, and the same numbers as the unfused path on copies in memory.
    EXPECT_TRUE(std::string_view(ref_data, ref.size() * 4) == std::string_view(reinterpret_cast<const char*>(ref.data()), ref.size() * 4));
    const TensorView a{"x", DType::f32, {ref.size()}, std::string_view(reinterpret_cast<const char*>(test.data()), test.size() * 4)};
    const TensorView b{"x", DType::f32, {ref.size()}, std::string_view(reinterpret_cast<const char*>(ref.data()), ref.size() * 4)};
    EXPECT_TRUE(same_metrics(c.results[0].metrics, unfused::compute_metrics(a, b, c.results[0].tolerance, 1)));
    // A range inside one page gives nothing back; an inflated member is never touched.
    auto file = host::MappedFile::open(host, (dir / "ref.safetensors").string());
    ASSERT_TRUE(file);
    const char first = file->bytes()[100];
    file->release(10, 100);
    file->release(0, file->size());
    EXPECT_EQ(file->bytes()[100], first);
    std::filesystem::remove_all(dir);
}

TEST(CompareFused, ALargeDumpIsReadWithPreadAndGivesTheSameNumbers) {
    const auto dir = std::filesystem::temp_directory_path() / ("cudoctor-pread-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::vector<float> ref(3'000'000), test(ref.size());  // 12 MB a side: read through from 0 bytes here
    std::mt19937 gen(5);
    std::normal_distribution<float> normal;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ref[i] = normal(gen);
        test[i] = ref[i] * (1 + 1e-6f * normal(gen));
    }
    test[1'234'567] = std::numeric_limits<float>::quiet_NaN();
    const auto host = host::Host::real();
    const std::string ref_path = write_safetensors(dir / "ref.safetensors", ref),
                      test_path = write_safetensors(dir / "test.safetensors", test);
    auto ref_read = Dump::open(host, ref_path, kDefaultInflateCap, 0), test_read = Dump::open(host, test_path, kDefaultInflateCap, 0);
    auto ref_mapped = Dump::open(host, ref_path), test_mapped = Dump::open(host, test_path);
    ASSERT_TRUE(ref_read && test_read && ref_mapped && test_mapped);
    EXPECT_TRUE(ref_read->readable(ref_read->tensors()[0]));
    EXPECT_FALSE(ref_mapped->readable(ref_mapped->tensors()[0]));  // 12 MB: under kReadThroughFrom
    // read() copies exactly the view's bytes, and refuses a range past the tensor's end.
    const auto& t = ref_read->tensors()[0];
    std::vector<char> copy(4096);
    ASSERT_TRUE(ref_read->read(t, 40'000, copy.size(), copy.data()));
    EXPECT_EQ(std::string_view(copy.data(), copy.size()), t.data.substr(40'000, copy.size()));
    EXPECT_FALSE(ref_read->read(t, t.data.size() - 10, 11, copy.data()));
    EXPECT_FALSE(ref_mapped->read(ref_mapped->tensors()[0], 0, 16, copy.data()));

    const Comparison read = compare_dumps(*ref_read, *test_read, {}), mapped = compare_dumps(*ref_mapped, *test_mapped, {});
    ASSERT_EQ(read.results.size(), 1u);
    ASSERT_EQ(mapped.results.size(), 1u);
    EXPECT_TRUE(same_metrics(read.results[0].metrics, mapped.results[0].metrics));
    EXPECT_EQ(read.results[0].metrics.nan_test, 1u);
    std::filesystem::remove_all(dir);
}

TEST(CompareFused, TheTestCorpusGivesTheOldNumbersTextAndJson) {
    if (std::string(CUDOCTOR_COMPARE_DATA).empty()) GTEST_SKIP() << "no numpy/torch: compare test data not built";
    const auto host = host::Host::real();
    const std::string data = CUDOCTOR_COMPARE_DATA;
    const std::pair<const char*, const char*> pairs[] = {
        {"dtypes_ref.safetensors", "dtypes_test.safetensors"},
        {"dtypes_ref.npz", "dtypes_test.npz"},
        {"dtypes_ref_npy", "dtypes_test_compressed.npz"},
        {"dtypes_ref_compressed.npz", "dtypes_test_npy"},
        {"tt_ref.safetensors", "tt_bf16.safetensors"},
        {"tt_ref.safetensors", "tt_tanh.safetensors"},
        {"tt_ref.npz", "tt_bf16.npz"},
    };
    std::size_t tensors = 0;
    for (const auto& [r, t] : pairs) {
        SCOPED_TRACE(std::string(r) + " " + t);
        auto ref = Dump::open(host, data + "/" + r);
        auto test = Dump::open(host, data + "/" + t);
        ASSERT_TRUE(ref) << ref.error().message;
        ASSERT_TRUE(test) << test.error().message;
        const Comparison fused = compare_dumps(*ref, *test, {});
        // The same comparison with every tensor's numbers from the unfused path.
        Comparison old = fused;
        for (auto& result : old.results) {
            if (!result.compared) continue;
            const auto find = [](const Dump& d, const std::string& name) {
                return *std::find_if(d.tensors().begin(), d.tensors().end(), [&](const TensorView& v) { return v.name == name; });
            };
            result.metrics = unfused::compute_metrics(find(*test, result.test_name), find(*ref, result.name), result.tolerance, 1);
        }
        for (std::size_t i = 0; i < fused.results.size(); ++i, ++tensors)
            EXPECT_TRUE(same_metrics(fused.results[i].metrics, old.results[i].metrics)) << fused.results[i].name;
        std::ostringstream fused_text, old_text;
        render_text(fused, fused_text, false);
        render_text(old, old_text, false);
        EXPECT_EQ(fused_text.str(), old_text.str());
        EXPECT_EQ(to_json(fused).dump(), to_json(old).dump());
    }
    EXPECT_GT(tensors, 50u);
}

}  // namespace compare_fused_test
