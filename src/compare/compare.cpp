#include "compare/compare.hpp"

#include <algorithm>

#include "compare/format_number.hpp"
#include "compare/precision.hpp"

namespace cudoctor::compare {

const char* to_string(Status s) {
    switch (s) {
        case Status::pass: return "PASS";
        case Status::fail: return "FAIL";
        case Status::skipped: return "SKIP";
    }
    return "?";
}

std::size_t Comparison::count(Status s) const {
    return static_cast<std::size_t>(std::count_if(results.begin(), results.end(), [s](const auto& r) { return r.status == s; }));
}

bool Comparison::failed() const { return count(Status::fail) > 0 || (strict && (!only_ref.empty() || !only_test.empty())); }

namespace {

/// Tensors are read in windows of this many bytes (on the wider side), the next one read ahead
/// while one is compared and each given back once compared: a comparison holds a few windows
/// in memory, not both dumps (2 × 1 GB compared in under 100 MB).
constexpr std::uint64_t kWindowBytes = std::uint64_t{16} << 20;

/// Windows over the elements of `t`, a tensor of `dump`.
ReadWindows windows_over(const Dump& dump, const formats::TensorView& t) {
    const std::uint64_t size = formats::dtype_size(t.dtype);
    ReadWindows w;
    w.bytes = kWindowBytes;
    // A tensor read with pread(2) needs no read-ahead of its own: the kernel's, as for cat, reads
    // ahead of each copy. (MADV_WILLNEED on pages already cached walked the page cache: a fifth
    // of the time of 2 x 1 GB.)
    const bool read_through = dump.readable(t);
    if (!read_through)
        w.ahead = [&dump, &t, size](std::uint64_t begin, std::uint64_t end) { dump.read_ahead(t, begin * size, (end - begin) * size); };
    w.done = [&dump, &t, size](std::uint64_t begin, std::uint64_t end) { dump.release(t, begin * size, (end - begin) * size); };
    if (read_through)
        w.read = [&dump, &t, size](std::uint64_t begin, std::uint64_t end, char* to) {
            return dump.read(t, begin * size, (end - begin) * size, to);
        };
    return w;
}

/// Windows over the same elements of two tensors.
ReadWindows windows_over(const ReadWindows& a, const ReadWindows& b) {
    ReadWindows w;
    w.bytes = std::max(a.bytes, b.bytes);
    if (a.ahead || b.ahead)
        w.ahead = [&a, &b](std::uint64_t begin, std::uint64_t end) {
            if (a.ahead) a.ahead(begin, end);
            if (b.ahead) b.ahead(begin, end);
        };
    w.done = [&a, &b](std::uint64_t begin, std::uint64_t end) {
        a.done(begin, end);
        b.done(begin, end);
    };
    w.read = a.read;
    w.read_ref = b.read;
    return w;
}

std::uint64_t numel_of(const std::vector<std::uint64_t>& shape) {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

void judge(TensorResult& r, bool check_dtype) {
    const auto fail_with = [&r](std::string why) {
        r.status = Status::fail;
        r.findings.push_back(std::move(why));
    };
    if (r.ref_shape != r.test_shape)
        fail_with("shape " + formats::shape_text(r.test_shape) + " in TEST, " + formats::shape_text(r.ref_shape) + " in REF");
    if (r.ref_dtype != r.test_dtype) {
        const std::string what = "dtype " + std::string(formats::dtype_name(r.test_dtype)) + " in TEST, " +
                                 std::string(formats::dtype_name(r.ref_dtype)) + " in REF";
        if (check_dtype) fail_with(what);
        else r.notes.push_back(what + " (compared at the looser tolerance)");
    }
    if (!r.compared) return;
    const Metrics& m = r.metrics;
    if (m.nan_test || m.nan_ref) fail_with("NaN: " + std::to_string(m.nan_test) + " in TEST, " + std::to_string(m.nan_ref) + " in REF");
    if (m.mismatched) {
        const Tolerance& t = r.tolerance;
        fail_with(std::to_string(m.mismatched) + " of " + std::to_string(m.numel) + " elements " +
                  (t.exact ? std::string("differ")
                           : "beyond atol + rtol·|ref| (atol " + format_number(t.atol) + ", rtol " + format_number(t.rtol) + ")"));
    }
    if (!r.tolerance.exact && !(m.rel <= r.tolerance.rel))
        fail_with("relative error " + format_number(m.rel) + " over the layer limit " + format_number(r.tolerance.rel));
    if (r.tolerance.skip) r.status = Status::skipped;
}

}  // namespace

Comparison compare_dumps(const Dump& ref, const Dump& test, const CompareOptions& options) {
    Comparison c;
    c.ref_path = ref.path();
    c.test_path = test.path();
    c.ref_format = ref.format();
    c.test_format = test.format();
    const auto pairing = pair_tensors(ref.tensors(), test.tensors(), options.map, options.sort_by_name);
    c.only_ref = pairing.only_ref;
    c.only_test = pairing.only_test;
    c.strict = options.strict;
    c.speed = measure_speed(ref.trace(), test.trace(), options.map, options.slower_ratio);
    for (const Dump* d : {&ref, &test})
        if (!d->trace_problem().empty()) c.trace_problems.push_back(d->trace_problem());
    for (const auto& p : pairing.pairs) {
        const auto& a = test.tensors()[p.test];
        const auto& b = ref.tensors()[p.ref];
        const ReadWindows test_windows = windows_over(test, a), ref_windows = windows_over(ref, b);
        TensorResult r;
        r.name = b.name;
        r.test_name = a.name;
        r.ref_dtype = b.dtype;
        r.test_dtype = a.dtype;
        r.ref_shape = b.shape;
        r.test_shape = a.shape;
        // Judged at the precision the values were computed in: a bf16 run saved as float32
        // is held to bf16's line, and the note says so.
        formats::DType test_values = a.dtype, ref_values = b.dtype;
        if (a.dtype == formats::DType::f32 && b.dtype == formats::DType::f32) {
            const auto narrow_test = narrower_values(a, test_windows), narrow_ref = narrower_values(b, ref_windows);
            if (narrow_test != narrow_ref) {
                if (narrow_test) test_values = *narrow_test;
                if (narrow_ref) ref_values = *narrow_ref;
                const bool in_test = narrow_test.has_value();
                r.notes.push_back(std::string(in_test ? "TEST" : "REF") + "'s F32 values are all " +
                                  std::string(formats::dtype_name(in_test ? test_values : ref_values)) +
                                  " values (a lower-precision run saved as F32): compared at the looser tolerance");
            }
        }
        r.tolerance = tolerance_for(b.name, test_values, ref_values, options.overrides, options.layer_rules);
        // Values are compared whenever the element counts agree (a [1, 8] against an [8] still
        // says how far the numbers are), though a shape difference fails the tensor.
        r.compared = numel_of(a.shape) == numel_of(b.shape);
        if (r.compared) r.metrics = compute_metrics(a, b, r.tolerance, options.threads, windows_over(test_windows, ref_windows));
        judge(r, options.check_dtype);
        if (r.status == Status::fail && !c.first_failure) c.first_failure = c.results.size();
        c.results.push_back(std::move(r));
    }
    return c;
}

}  // namespace cudoctor::compare
