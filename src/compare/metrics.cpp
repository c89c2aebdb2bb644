#include "compare/metrics.hpp"

#include <immintrin.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>
#include <vector>

#include "compare/convert.hpp"

namespace cudoctor::compare {
namespace {

using formats::DType;

constexpr std::size_t kBlock = 1024;                      // elements per block (one partial sum each)
constexpr std::uint64_t kChunk = std::uint64_t{1} << 16;  // elements per unit of work (and of partial sums)

// Eight or four elements at a time (metrics_kernel.inc), written out with GCC's vector
// extensions so the loop is vectorised without -ffast-math (which would assume NaN away). (The
// vectors never cross a translation unit, so the psABI note about passing them without AVX
// does not apply.) AVX-512 has FMA, and GCC contracts `a * b + c` into one by default: the build
// says -ffp-contract=off (CMakeLists.txt), so in every set the tolerance rule and the sums round
// twice, as NumPy's do (CompareFused.TheToleranceRuleIsNeverFusedIntoOneRounding).
#pragma GCC diagnostic ignored "-Wpsabi"
using V4d = double __attribute__((vector_size(32)));

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

/// The element types read straight from the dumps; the others are widened into a buffer first.
enum class Kind : std::uint8_t { f64, f32, f16, bf16, widened };

Kind kind_of(DType t) {
    switch (t) {
        case DType::f64: return Kind::f64;
        case DType::f32: return Kind::f32;
        case DType::f16: return Kind::f16;
        case DType::bf16: return Kind::bf16;
        default: return Kind::widened;
    }
}

// The kernel once per instruction set, the best the CPU runs chosen at load time (by hand, not
// with target_clones: a clone's body is built for its set, but the templates it inlines are
// not). (clang, which only lints this file, knows no target pragmas: all three are baseline.)
#ifndef __clang__
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
namespace avx512 {
constexpr std::size_t kLanes = 8;
#include "compare/metrics_kernel.inc"
}  // namespace avx512
#ifndef __clang__
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
namespace avx2 {
constexpr std::size_t kLanes = 4;
#ifndef __clang__
#define CUDOCTOR_KERNEL_AVX2
#endif
#include "compare/metrics_kernel.inc"
#undef CUDOCTOR_KERNEL_AVX2
}  // namespace avx2
#ifndef __clang__
#pragma GCC pop_options
#endif
namespace baseline {
constexpr std::size_t kLanes = 4;
#include "compare/metrics_kernel.inc"
}  // namespace baseline

struct Kernel {
    BlockResult (*block)(Kind, Kind, const char*, const char*, std::size_t, double, double, double);
    std::size_t (*find)(Kind, Kind, const char*, const char*, std::size_t, bool, double);
};

const Kernel* kernel_for(detail::Isa isa) {
    static constexpr Kernel k512{avx512::fused_block, avx512::fused_find}, k2{avx2::fused_block, avx2::fused_find},
        k0{baseline::fused_block, baseline::fused_find};
    switch (isa) {
        case detail::Isa::avx512: return &k512;
        case detail::Isa::avx2: return &k2;
        case detail::Isa::baseline: return &k0;
    }
    return &k0;
}

std::atomic<const Kernel*> chosen_kernel{kernel_for(detail::best_isa())};

/// 64-bit integers past 2^53 are not all doubles: for them, exactness is decided on the bits.
std::uint64_t raw_mismatches(const char* t, const char* r, std::size_t count) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < count; ++i) n += std::memcmp(t + i * 8, r + i * 8, 8) != 0;
    return n;
}

using Reader = std::function<bool(std::uint64_t, std::uint64_t, char*)>;

struct Job {
    const formats::TensorView& test;
    const formats::TensorView& ref;
    Tolerance tol;
    bool raw_exact;
    Kind test_kind, ref_kind;
    const Kernel* kernel;
    const Reader& read_test;  ///< may be empty: the elements are read from the view
    const Reader& read_ref;
};

/// Where one side of a chunk is read: `data` holds elements from `first` on (the tensor's view
/// from 0, or a copy of the chunk from its first element).
struct Source {
    const char* data;
    std::uint64_t first;
};

/// One side of the chunk [begin, end): copied into `buffer` by `read` when there is one and it
/// can, else the tensor's view.
Source chunk_source(const formats::TensorView& t, const Reader& read, std::uint64_t begin, std::uint64_t end, std::vector<char>& buffer) {
    if (read) {
        buffer.resize(static_cast<std::size_t>((end - begin) * formats::dtype_size(t.dtype)));
        if (read(begin, end, buffer.data())) return {buffer.data(), begin};
    }
    return {t.data.data(), 0};
}

/// One side of a block as the kernel reads it: straight from the chunk's source, or widened into
/// `buffer` (zero-padded to a multiple of 8) where its type is not read directly or the block is
/// short.
const char* block_source(const formats::TensorView& t, const Source& src, Kind kind, std::uint64_t at, std::size_t n, std::size_t padded,
                         double* buffer, Kind& as) {
    if (kind != Kind::widened && n == padded) {
        as = kind;
        return src.data + (at - src.first) * formats::dtype_size(t.dtype);
    }
    widen(t.dtype, src.data, at - src.first, n, buffer);
    std::fill(buffer + n, buffer + padded, 0.0);
    as = Kind::f64;
    return reinterpret_cast<const char*>(buffer);
}

/// The copies of one worker's chunks, kept from chunk to chunk.
struct ChunkBuffers {
    std::vector<char> test, ref;
};

/// The largest |d| and quotient of the chunks one worker compared before, in this window (its
/// chunks come in ascending order, and are merged in chunk order): a chunk whose maximum does not
/// pass them cannot hold the first element of the whole tensor's maximum (an earlier chunk has
/// one at least as large), so its element is not looked for, nor its quotients computed below
/// them. Such a chunk's maximum is then not exact, only never above what merge() has already.
struct Floors {
    double abs = -1, rel = -1;
};

Partial run_chunk(const Job& job, std::uint64_t begin, std::uint64_t end, ChunkBuffers& buffers, Floors& floors) {
    Partial p;
    alignas(64) double tb[kBlock], rb[kBlock];
    const Source ts = chunk_source(job.test, job.read_test, begin, end, buffers.test);
    const Source rs = chunk_source(job.ref, job.read_ref, begin, end, buffers.ref);
    for (std::uint64_t at = begin; at < end; at += kBlock) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, end - at));
        const std::size_t padded = (n + 7) & ~std::size_t{7};
        Kind test_as = Kind::f64, ref_as = Kind::f64;
        const char* t = block_source(job.test, ts, job.test_kind, at, n, padded, tb, test_as);
        const char* r = block_source(job.ref, rs, job.ref_kind, at, n, padded, rb, ref_as);
        BlockResult b = job.kernel->block(test_as, ref_as, t, r, padded, job.tol.rtol, job.tol.atol, std::max({p.max_rel, floors.rel, 0.0}));
        if (job.raw_exact) b.mismatched = raw_mismatches(ts.data + (at - ts.first) * 8, rs.data + (at - rs.first) * 8, n);
        p.sum_abs.add(b.sum_abs);
        p.sum_sq_diff.add(b.sum_sq_diff);
        p.sum_sq_ref.add(b.sum_sq_ref);
        p.mismatched += b.mismatched;
        p.nan_test += b.nan_test;
        p.nan_ref += b.nan_ref;
        p.inf_test += b.inf_test;
        p.inf_ref += b.inf_ref;
        p.nonfinite += b.nonfinite;
        // A new maximum: find its first element in this block (rare after the first blocks),
        // with the values widened as the report shows them.
        const auto element_at = [&](std::size_t i) {
            ElementAt e{at + i, 0, 0};
            widen(job.test.dtype, ts.data, at + i - ts.first, 1, &e.test);
            widen(job.ref.dtype, rs.data, at + i - rs.first, 1, &e.ref);
            return e;
        };
        if (b.max_abs > p.max_abs) {
            p.max_abs = b.max_abs;
            if (b.max_abs > floors.abs)
                if (const std::size_t i = job.kernel->find(test_as, ref_as, t, r, padded, false, b.max_abs); i < n) p.worst = element_at(i);
        }
        if (b.max_rel > p.max_rel) {
            p.max_rel = b.max_rel;
            if (b.max_rel > floors.rel)
                if (const std::size_t i = job.kernel->find(test_as, ref_as, t, r, padded, true, b.max_rel); i < n)
                    p.worst_rel = element_at(i);
        }
    }
    floors.abs = std::max(floors.abs, p.max_abs);
    floors.rel = std::max(floors.rel, p.max_rel);
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

/// Chunks [first, last) by `threads` threads (each with its buffers: at least `threads` of
/// them), merged into `total` in chunk order.
void run_chunks(const Job& job, std::uint64_t numel, std::uint64_t first, std::uint64_t last, unsigned threads,
                std::vector<ChunkBuffers>& buffers, Partial& total) {
    const auto bounds = [numel](std::uint64_t c) { return std::pair{c * kChunk, std::min(numel, (c + 1) * kChunk)}; };
    threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, last - first));
    if (threads <= 1) {
        Floors floors;
        for (std::uint64_t c = first; c < last; ++c) {
            const auto [b, e] = bounds(c);
            merge(total, run_chunk(job, b, e, buffers.front(), floors));
        }
        return;
    }
    std::vector<Partial> partials(static_cast<std::size_t>(last - first));
    std::atomic<std::uint64_t> next{first};
    const auto worker = [&](ChunkBuffers& mine) {
        Floors floors;
        for (std::uint64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < last;) {
            const auto [b, e] = bounds(c);
            partials[static_cast<std::size_t>(c - first)] = run_chunk(job, b, e, mine, floors);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker, std::ref(buffers[i]));
    worker(buffers.front());
    for (auto& t : pool) t.join();
    for (const auto& p : partials) merge(total, p);  // in chunk order: the same sums for any thread count
}

}  // namespace

Metrics compute_metrics(const formats::TensorView& test, const formats::TensorView& ref, const Tolerance& tol, unsigned threads,
                        const ReadWindows& windows) {
    const std::uint64_t numel = std::min(test.numel(), ref.numel());
    const bool wide_ints = (test.dtype == DType::i64 || test.dtype == DType::u64) && test.dtype == ref.dtype;
    const Job job{test,
                  ref,
                  tol,
                  tol.exact && wide_ints,
                  kind_of(test.dtype),
                  kind_of(ref.dtype),
                  chosen_kernel.load(std::memory_order_relaxed),
                  windows.read,
                  windows.read_ref};
    const std::uint64_t chunks = (numel + kChunk - 1) / kChunk;
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    if (numel < 4 * kChunk) threads = 1;
    std::vector<ChunkBuffers> buffers(threads);

    // Window by window (whole chunks, so the sums are the same for any window size), the next
    // one read ahead while this one is compared, each handed back once compared.
    const std::uint64_t widest = std::max(formats::dtype_size(test.dtype), formats::dtype_size(ref.dtype));
    // Windows bound what is mapped. Both sides copied chunk by chunk (pread) map nothing: their
    // chunks are one window, since each window's end waits for every thread (64 windows of a
    // 2 x 1 GB compare were a seventh of its time). (A copy that fails falls back to the mapping.)
    const bool copied = windows.read && windows.read_ref;
    const std::uint64_t window = windows.bytes && !copied ? std::max<std::uint64_t>(1, windows.bytes / widest / kChunk) : chunks;
    const auto elements = [numel](std::uint64_t c) { return std::min(numel, c * kChunk); };
    Partial total;
    if (windows.ahead && chunks) windows.ahead(0, elements(std::min(chunks, window)));
    for (std::uint64_t first = 0; first < chunks; first += window) {
        const std::uint64_t last = std::min(chunks, first + window);
        if (windows.ahead && last < chunks) windows.ahead(elements(last), elements(std::min(chunks, last + window)));
        run_chunks(job, numel, first, last, threads, buffers, total);
        if (windows.done) windows.done(elements(first), elements(last));
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

namespace detail {

Isa best_isa() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
    if (__builtin_cpu_supports("avx2")) return Isa::avx2;
    return Isa::baseline;
}

Isa use_isa(Isa isa) {
    const Isa best = best_isa();
    if (static_cast<int>(isa) > static_cast<int>(best)) isa = best;
    chosen_kernel.store(kernel_for(isa), std::memory_order_relaxed);
    return isa;
}

}  // namespace detail

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
