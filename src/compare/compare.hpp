#pragma once
// `cudoctor compare`'s core: two dumps of named tensors (REF from the trusted backend, TEST from
// the new one), paired by name, every pair measured and judged against its tolerance.
#include <optional>
#include <string>
#include <vector>

#include "compare/dump.hpp"
#include "compare/matching.hpp"
#include "compare/metrics.hpp"
#include "compare/speed.hpp"
#include "compare/tolerance.hpp"

namespace cudoctor::compare {

enum class Status { pass, fail, skipped };
const char* to_string(Status s);

struct TensorResult {
    std::string name;       ///< REF's name
    std::string test_name;  ///< TEST's name (differs when mapped)
    formats::DType ref_dtype = formats::DType::f32, test_dtype = formats::DType::f32;
    std::vector<std::uint64_t> ref_shape, test_shape;
    bool compared = false;  ///< false when the element counts differ: no values were read
    Metrics metrics;
    Tolerance tolerance;
    Status status = Status::pass;
    /// Why it failed, one phrase each.
    std::vector<std::string> findings;
    /// What is worth knowing but does not fail it (a dtype difference without --check-dtype).
    std::vector<std::string> notes;
};

struct CompareOptions {
    NameMap map;
    ToleranceOverride overrides;
    std::vector<LayerRule> layer_rules;
    bool sort_by_name = false;
    bool check_dtype = false;  ///< a dtype difference fails the tensor (by default it is a note)
    unsigned threads = 0;      ///< 0: one per CPU
    /// A layer whose TEST time exceeds this multiple of its REF time is named (when both dumps
    /// carry timings).
    double slower_ratio = kDefaultSlowerRatio;
    bool strict = false;  ///< a tensor in only one dump fails the comparison
};

struct Comparison {
    std::string ref_path, test_path, ref_format, test_format;
    std::vector<TensorResult> results;  ///< execution order (REF's), or by name
    std::vector<std::string> only_ref, only_test;
    std::optional<std::size_t> first_failure;  ///< index into results
    Speed speed;                               ///< times and devices, from the dumps' layer traces
    std::vector<std::string> trace_problems;   ///< layer traces present but unreadable
    bool strict = false;

    std::size_t count(Status s) const;
    /// A tensor failed, or (strict) a tensor exists in only one dump.
    bool failed() const;
};

/// Pairs and measures every tensor. Never fails: shape and dtype differences, NaN and
/// infinities are findings in the result.
Comparison compare_dumps(const Dump& ref, const Dump& test, const CompareOptions& options);

}  // namespace cudoctor::compare
