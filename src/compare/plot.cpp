#include "compare/plot.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "compare/format_number.hpp"
#include "report/style.hpp"

namespace cudoctor::compare {
namespace {

constexpr double kWidth = 960, kHeight = 440, kLeft = 70, kRight = 20, kTop = 40, kBottom = 60;
constexpr double kSpeedHeight = 360;  // the time-ratio panel below, when both dumps carry timings

}  // namespace

// Not clang-formatted: each SVG element is one fmt::format with its "\n" on the same line.
// clang-format off
namespace {

/// TEST time / REF time per layer on a log2 scale from `top` down: 1× as a grey line, the
/// threshold dashed, slower layers red; each point's <title> names the layer and both times.
std::string speed_panel(const Speed& sp, double top) {
    double lo = 0, hi = 0;  // log2 of the ratios shown, with the threshold and 1× always in view
    for (const auto& l : sp.layers) {
        const double r = l.ratio();
        if (!(r > 0) || !std::isfinite(r)) continue;
        lo = std::min(lo, std::log2(r));
        hi = std::max(hi, std::log2(r));
    }
    hi = std::max(hi, std::log2(sp.threshold));
    const int emin = std::max(static_cast<int>(std::floor(lo)) - 1, -20), emax = std::min(std::max(static_cast<int>(std::ceil(hi)) + 1, emin + 2), 40);
    const double y0 = top + kTop, pw = kWidth - kLeft - kRight, ph = kSpeedHeight - kTop - kBottom;
    const std::size_t n = sp.layers.size();
    const auto x_of = [&](std::size_t i) { return kLeft + (n <= 1 ? pw / 2 : pw * static_cast<double>(i) / static_cast<double>(n - 1)); };
    const auto y_of = [&](double r) {
        const double l = std::clamp(std::log2(r), static_cast<double>(emin), static_cast<double>(emax));
        return y0 + ph * (emax - l) / (emax - emin);
    };
    std::string s = fmt::format(R"svg(<text x="{}" y="{}" font-size="15">Time per layer, TEST / REF (median per call; {} of {} layers slower than {:.2f}×)</text>)svg" "\n",
                                kLeft, top + 22, sp.slower_count(), n, sp.threshold);
    const int step = std::max(1, (emax - emin) / 10);
    for (int e = emin; e <= emax; e += step) {
        const double y = y_of(std::exp2(e));
        s += fmt::format(R"svg(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="{}"/><text x="{}" y="{:.1f}" text-anchor="end" dominant-baseline="middle">{}×</text>)svg" "\n",
                         kLeft, y, kWidth - kRight, y, e == 0 ? "#999" : "#ddd", kLeft - 6, y, fmt::format("{:g}", std::exp2(e)));
    }
    s += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#444"/>)svg" "\n", kLeft, y0, pw, ph);
    const double yt = y_of(sp.threshold);
    s += fmt::format(R"svg(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#d08000" stroke-width="1.5" stroke-dasharray="6 4"><title>threshold {:.2f}×</title></line>)svg" "\n",
                     kLeft, yt, kWidth - kRight, yt, sp.threshold);
    s += fmt::format(R"svg(<text x="{}" y="{}" text-anchor="middle">layer (REF's order), {} layers timed on both sides</text>)svg" "\n", kLeft + pw / 2, top + kSpeedHeight - 14, n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& l = sp.layers[i];
        const double r = l.ratio();
        const std::string title = report::outside_text(fmt::format("{}: REF {:.4g} ms, TEST {:.4g} ms, {}", l.name, l.ref_ms, l.test_ms,
                                                                   std::isfinite(r) ? fmt::format("{:.2f}×", r) : std::string("inf")), report::Medium::svg);
        s += fmt::format(R"svg(<circle cx="{:.1f}" cy="{:.1f}" r="3.5" fill="{}"><title>{}</title></circle>)svg" "\n", x_of(i),
                         r > 0 && std::isfinite(r) ? y_of(r) : r == 0 ? y0 + ph : y0, l.slower ? "#c00" : "#080", title);
    }
    return s;
}

}  // namespace

std::string render_svg(const Comparison& c) {
    // The decades shown: every finite non-zero error and every limit, one decade of room around.
    double lo = 0, hi = 0;
    bool any = false;
    const auto include = [&](double v) {
        if (!(v > 0) || !std::isfinite(v)) return;
        const double l = std::log10(v);
        lo = any ? std::min(lo, l) : l;
        hi = any ? std::max(hi, l) : l;
        any = true;
    };
    for (const auto& r : c.results) {
        if (r.compared) include(r.metrics.rel);
        if (!r.tolerance.exact) include(r.tolerance.rel);
    }
    int dmin = any ? static_cast<int>(std::floor(lo)) - 1 : -8;
    int dmax = any ? static_cast<int>(std::ceil(hi)) + 1 : 0;
    dmin = std::max(dmin, -20);
    dmax = std::min(std::max(dmax, dmin + 2), 10);

    const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
    const std::size_t n = c.results.size();
    const auto x_of = [&](std::size_t i) { return kLeft + (n <= 1 ? pw / 2 : pw * static_cast<double>(i) / static_cast<double>(n - 1)); };
    const auto y_of = [&](double v) {
        const double l = std::clamp(std::log10(v), static_cast<double>(dmin), static_cast<double>(dmax));
        return kTop + ph * (dmax - l) / (dmax - dmin);
    };

    const double height = kHeight + (c.speed.available ? kSpeedHeight : 0);
    std::string s = fmt::format(R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="sans-serif" font-size="12">)svg" "\n",
                                kWidth, height);
    s += fmt::format(R"svg(<rect width="{}" height="{}" fill="white"/>)svg" "\n", kWidth, height);
    s += fmt::format(R"svg(<text x="{}" y="22" font-size="15">Relative error ‖TEST − REF‖ / ‖REF‖ per layer</text>)svg" "\n", kLeft);
    for (int d = dmin; d <= dmax; ++d) {
        const double y = y_of(std::pow(10.0, d));
        s += fmt::format(R"svg(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#ddd"/><text x="{}" y="{:.1f}" text-anchor="end" dominant-baseline="middle">1e{}</text>)svg" "\n",
                         kLeft, y, kWidth - kRight, y, kLeft - 6, y, d);
    }
    s += fmt::format(R"svg(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#444"/>)svg" "\n", kLeft, kTop, pw, ph);
    s += fmt::format(R"svg(<text x="{}" y="{}" text-anchor="middle">layer (execution order), {} tensors</text>)svg" "\n", kLeft + pw / 2, kHeight - 14, n);
    const std::size_t step = std::max<std::size_t>(1, n / 20);
    for (std::size_t i = 0; i < n; i += step)
        s += fmt::format(R"svg(<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>)svg" "\n", x_of(i), kTop + ph + 16, i + 1);

    // The limit of each layer, as a step line (layers may have their own).
    std::string limit;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& t = c.results[i].tolerance;
        const double v = t.exact ? std::pow(10.0, dmin) : t.rel;
        const double half = n <= 1 ? pw / 2 : pw / static_cast<double>(n - 1) / 2;
        limit += fmt::format("{}{:.1f},{:.1f} {:.1f},{:.1f} ", limit.empty() ? "M" : "L", std::max(kLeft, x_of(i) - half), y_of(v),
                             std::min(kWidth - kRight, x_of(i) + half), y_of(v));
    }
    if (!limit.empty())
        s += fmt::format(R"svg(<path d="{}" fill="none" stroke="#d08000" stroke-width="1.5" stroke-dasharray="6 4"><title>tolerance (layer limit)</title></path>)svg" "\n", limit);

    std::string line;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& r = c.results[i];
        if (!r.compared) continue;
        const double v = r.metrics.rel;
        const double y = v > 0 && std::isfinite(v) ? y_of(v) : v == 0 ? kTop + ph : kTop;
        line += fmt::format("{}{:.1f},{:.1f} ", line.empty() ? "M" : "L", x_of(i), y);
    }
    if (!line.empty()) s += fmt::format(R"svg(<path d="{}" fill="none" stroke="#888" stroke-width="1"/>)svg" "\n", line);

    if (c.first_failure) {
        const double x = x_of(*c.first_failure);
        s += fmt::format(R"svg(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#c00" stroke-dasharray="3 3"/>)svg" "\n", x, kTop, kTop + ph);
        s += fmt::format(R"svg(<text x="{:.1f}" y="{}" fill="#c00" text-anchor="{}">first failure: {}</text>)svg" "\n", x + (x > kWidth / 2 ? -4 : 4), kTop + 14,
                         x > kWidth / 2 ? "end" : "start", report::outside_text(c.results[*c.first_failure].name, report::Medium::svg));
    }
    for (std::size_t i = 0; i < n; ++i) {
        const auto& r = c.results[i];
        const std::string color = r.status == Status::fail ? "#c00" : r.status == Status::pass ? "#080" : "#888";
        const std::string title = report::outside_text(fmt::format("#{} {}: rel {} (limit {}), max abs {}, {}", i + 1, r.name, r.compared ? format_number(r.metrics.rel) : "-",
                                                         r.tolerance.exact ? "exact" : format_number(r.tolerance.rel),
                                                         r.compared ? format_number(r.metrics.max_abs) : "-", to_string(r.status)), report::Medium::svg);
        const double x = x_of(i);
        const double v = r.compared ? r.metrics.rel : std::nan("");
        if (r.compared && v > 0 && std::isfinite(v)) {
            s += fmt::format(R"svg(<circle cx="{:.1f}" cy="{:.1f}" r="3.5" fill="{}"><title>{}</title></circle>)svg" "\n", x, y_of(v), color, title);
        } else if (r.compared && v == 0) {
            s += fmt::format(R"svg(<circle cx="{:.1f}" cy="{:.1f}" r="3.5" fill="white" stroke="{}"><title>{} (exact)</title></circle>)svg" "\n", x, kTop + ph, color, title);
        } else {
            const double y = kTop;
            s += fmt::format(R"svg(<path d="M{0:.1f},{1:.1f} l6,6 m-6,0 l6,-6" transform="translate(-3,-3)" stroke="{2}" stroke-width="2"><title>{3}</title></path>)svg" "\n", x, y, color, title);
        }
    }
    if (c.speed.available) s += speed_panel(c.speed, kHeight);
    s += "</svg>\n";
    return s;
}
// clang-format on

}  // namespace cudoctor::compare
