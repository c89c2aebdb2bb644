#include "compare/tolerance.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/text.hpp"

namespace cudoctor::compare {

using formats::DType;

Tolerance default_tolerance(DType t) {
    // torch/testing/_comparison.py, _DTYPE_PRECISIONS (the same in torch 1.13 and 2.x).
    switch (t) {
        case DType::f64: return {1e-7, 1e-7, 1e-7};
        case DType::f32: return {1.3e-6, 1e-5, 1.3e-6};
        case DType::f16: return {1e-3, 1e-5, 1e-3};
        // Elementwise torch's 1.6e-2 (a few bf16 ulps: single elements near zero drift that far);
        // the layer as a whole is held to the 1e-3 relative line of bf16 work.
        case DType::bf16: return {1.6e-2, 1e-5, 1e-3};
        case DType::f8_e4m3: return {0.125, 1e-5, 0.125};
        case DType::f8_e5m2: return {0.25, 1e-5, 0.25};
        default: return {0, 0, 0, true};
    }
}

Tolerance default_tolerance(DType test, DType ref) {
    const Tolerance a = default_tolerance(test), b = default_tolerance(ref);
    Tolerance t{std::max(a.rtol, b.rtol), std::max(a.atol, b.atol), std::max(a.rel, b.rel), a.exact && b.exact};
    // A float32 reference against a bfloat16 run carries bf16's rounding itself (about 2e-3
    // relative): the 1e-3 line is for two backends in the same precision. Across precisions the
    // layer is held to the coarser type's rtol, as assert_close holds each element.
    if (test != ref) t.rel = t.rtol;
    return t;
}

Tolerance ToleranceOverride::apply(Tolerance base) const {
    if (rtol) {
        base.rtol = *rtol;
        base.rel = *rtol;
    }
    if (atol) base.atol = *atol;
    if (rel) base.rel = *rel;
    if (rtol || atol || rel) base.exact = false;
    base.skip = base.skip || skip;
    return base;
}

namespace {

std::vector<std::string_view> words_of(std::string_view line) {
    std::vector<std::string_view> words;
    for (auto w : text::split(line, ' '))
        for (auto t : text::split(w, '\t'))
            if (!t.empty()) words.push_back(t);
    return words;
}

std::optional<double> non_negative(std::string_view text) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !(v >= 0) || !std::isfinite(v)) return std::nullopt;
    return v;
}

}  // namespace

Expected<std::vector<LayerRule>> parse_layer_rules(std::string_view text) {
    std::vector<LayerRule> rules;
    std::size_t number = 0;
    for (auto line : text::lines(text)) {
        ++number;
        if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        const auto words = words_of(line);
        if (words.empty()) continue;
        const std::string where = "line " + std::to_string(number) + ": ";
        LayerRule rule{std::string(words[0]), {}};
        if (words.size() == 1) return fail(Errc::parse, where + "'" + rule.pattern + "' has no values (rtol=, atol=, rel= or skip)");
        for (std::size_t i = 1; i < words.size(); ++i) {
            const std::string_view w = words[i];
            if (w == "skip") {
                rule.values.skip = true;
                continue;
            }
            const auto eq = w.find('=');
            const std::string_view key = w.substr(0, eq);
            const auto value = eq == std::string_view::npos ? std::nullopt : non_negative(w.substr(eq + 1));
            if (key != "rtol" && key != "atol" && key != "rel")
                return fail(Errc::parse, where + "unknown key '" + std::string(key) + "' (rtol, atol, rel or skip)");
            if (!value) return fail(Errc::parse, where + "'" + std::string(w) + "' is not " + std::string(key) + "=<non-negative number>");
            (key == "rtol" ? rule.values.rtol : key == "atol" ? rule.values.atol : rule.values.rel) = *value;
        }
        rules.push_back(std::move(rule));
    }
    return rules;
}

Tolerance tolerance_for(std::string_view name, DType test, DType ref, const ToleranceOverride& cli, const std::vector<LayerRule>& rules) {
    Tolerance t = cli.apply(default_tolerance(test, ref));
    const std::string n(name);
    for (const auto& rule : rules)
        if (::fnmatch(rule.pattern.c_str(), n.c_str(), 0) == 0) return rule.values.apply(t);
    return t;
}

}  // namespace cudoctor::compare
