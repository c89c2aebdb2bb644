// Fuzzes formats::LogScanner: arbitrary bytes, fed whole and in uneven pieces, with patterns of
// the catalog's kinds (literal prefilter, captures, messages wrapping onto the next line). The
// two feedings must find the same hits (the scan does not depend on how the log is cut), and
// the same as the reference engine the Vectorscan one replaced (detail::Re2LogScanner), and as
// that engine compiled for the input alone (only the patterns that can match it).
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include <stdlib.h>  // setenv

#include "formats/log_scan.hpp"
#include "formats/log_scan_re2.hpp"

namespace {

std::vector<cudoctor::formats::LogPattern> patterns() {
    return {
        {"cannot-open", "cannot open shared object", R"((lib\w+\.so(?:\.\d+)*):\s*cannot open shared object)"},
        {"driver-too-old", "driver on your system is too old", R"(The NVIDIA driver on your system is too old \(found version (\d+)\))"},
        {"gcc", "nsupported GNU version", R"([Uu]nsupported GNU version!? ?(?:gcc versions )?later than (\d+))"},
        {"wrap", "mismatches the version that was used to compile",
         R"(detected CUDA version \((\d+\.\d+)\) mismatches the version that was used to compile\s+PyTorch \((\d+\.\d+)\))"},
        {"oom", "CUDA out of memory", R"(CUDA out of memory\.(?: Tried to allocate (\d+(?:\.\d+)? [KMGT]?i?B))?)"},
        {"a", "a", "a+b"},
    };
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    cudoctor::formats::ScanLimits limits;
    limits.max_line = 300;  // small, so the fuzzer reaches the overlong-line windows
    // Vectorscan from the first byte (by default it reads only logs past 8 MiB): the engine fuzzed here.
    static const bool vectorscan = ::setenv("CUDOCTOR_LOG_ENGINE", "vectorscan", 1) == 0;
    (void)vectorscan;
    // Compiled once (RE2 compilation dominates otherwise), reset for every input.
    static auto whole = cudoctor::formats::LogScanner::create(patterns(), limits);
    static auto pieces = cudoctor::formats::LogScanner::create(patterns(), limits);
    static auto reference = cudoctor::formats::detail::Re2LogScanner::create(patterns(), limits);
    if (!whole || !pieces || !reference || whole->engine() != "vectorscan") __builtin_trap();
    whole->reset();
    pieces->reset();
    reference->reset();
    reference->feed(text);
    reference->finish();
    whole->feed(text);
    whole->finish();
    std::size_t pos = 0, step = 1;
    while (pos < text.size()) {
        const std::size_t n = std::min(step, text.size() - pos);
        pieces->feed(text.substr(pos, n));
        pos += n;
        step = step * 3 % 17 + 1;
    }
    pieces->finish();
    if (whole->lines() != pieces->lines() || whole->bytes() != size) __builtin_trap();
    // The same lines, hits and, with `counts`, match counts (any two scanners).
    const auto same = [](const auto& x, const auto& y, bool counts) {
        if (x.lines() != y.lines() || x.hits().size() != y.hits().size()) return false;
        for (std::size_t i = 0; i < x.hits().size(); ++i) {
            const auto &a = x.hits()[i], &b = y.hits()[i];
            if (a.pattern != b.pattern || a.line != b.line || a.groups != b.groups || a.text != b.text) return false;
        }
        for (std::size_t i = 0; counts && i < x.patterns().size(); ++i)
            if (x.match_count(i) != y.match_count(i)) return false;
        return true;
    };
    // Inputs under a megabyte are never sliced, so how they were cut must not matter at all.
    if (!same(*whole, *pieces, false)) __builtin_trap();
    // And the reference engine, fed whole, agrees on everything.
    if (!same(*whole, *reference, true)) __builtin_trap();
    // RE2 compiled for this input only (as a short log is, by default): the reference's hits.
    auto narrowed = cudoctor::formats::detail::Re2LogScanner::create(patterns(), limits, text);
    if (!narrowed) __builtin_trap();
    narrowed->feed(text);
    narrowed->finish();
    if (!same(*narrowed, *reference, true)) __builtin_trap();
    for (const auto& h : whole->hits()) {
        if (h.line == 0 || h.line > whole->lines()) __builtin_trap();
        if (h.pattern >= whole->patterns().size()) __builtin_trap();
    }
    (void)cudoctor::formats::printable_line(text, 64);
    return 0;
}
