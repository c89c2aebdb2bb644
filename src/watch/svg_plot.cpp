// memory_svg: the memory series of a summary as one standalone SVG, no library needed to view it.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/style.hpp"
#include "watch/summary.hpp"

namespace cudoctor::watch {
namespace {

constexpr double kWidth = 960, kHeight = 480, kLeft = 80, kRight = 260, kTop = 40, kBottom = 50;
constexpr std::size_t kMaxPoints = 2000;
constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"};

/// At most kMaxPoints: each bucket keeps its lowest and highest point, in time order.
std::vector<Point> thin(const std::vector<Point>& p) {
    if (p.size() <= kMaxPoints) return p;
    std::vector<Point> out;
    const std::size_t bucket = (p.size() + kMaxPoints / 2 - 1) / (kMaxPoints / 2);
    for (std::size_t i = 0; i < p.size(); i += bucket) {
        auto end = p.begin() + static_cast<std::ptrdiff_t>(std::min(p.size(), i + bucket));
        auto begin = p.begin() + static_cast<std::ptrdiff_t>(i);
        auto [lo, hi] = std::minmax_element(begin, end, [](const Point& a, const Point& b) { return a.y < b.y; });
        if (lo->t <= hi->t) {
            out.push_back(*lo);
            if (hi != lo) out.push_back(*hi);
        } else {
            out.push_back(*hi);
            out.push_back(*lo);
        }
    }
    return out;
}

}  // namespace

std::string memory_svg(const Summary& s) {
    double t_max = 0, y_max = 0;
    for (const auto& m : s.series)
        for (const auto& p : m.points) {
            t_max = std::max(t_max, p.t);
            y_max = std::max(y_max, p.y);
        }
    if (t_max <= 0) t_max = 1;
    if (y_max <= 0) y_max = 1;
    y_max *= 1.05;
    const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
    auto x = [&](double t) { return kLeft + t / t_max * plot_w; };
    auto y = [&](double v) { return kTop + plot_h - v / y_max * plot_h; };

    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{2}\" y=\"24\" font-size=\"15\">GPU memory over time — {3}</text>\n",
        kWidth, kHeight, kLeft, report::outside_text(s.dir, report::Medium::svg));
    for (int i = 0; i <= 5; ++i) {
        const double v = y_max * i / 5, t = t_max * i / 5;
        svg += fmt::format(
            "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
            kLeft, kLeft + plot_w, y(v), kLeft - 6, y(v) + 4, report::outside_text(bytes_text(v), report::Medium::svg));
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
            x(t), kTop, kTop + plot_h, kTop + plot_h + 18, clock_text(t));
    }
    svg +=
        fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">time since the start (hh:mm)</text>\n", kLeft + plot_w / 2, kHeight - 8);
    for (const auto& r : s.reports) {
        const double at = x(r.row.elapsed);
        const std::string label = r.row.kind == "xid" ? fmt::format("Xid {}", r.row.code) : r.row.kind;
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"red\" stroke-dasharray=\"4 3\"><title>{3}</title></line>"
            "<text x=\"{0:.1f}\" y=\"{4}\" fill=\"red\" text-anchor=\"middle\">{5}</text>\n",
            at, kTop, kTop + plot_h, report::outside_text(r.row.text, report::Medium::svg), kTop - 4,
            report::outside_text(label, report::Medium::svg));
    }
    if (s.series.empty())
        svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555\">{}</text>\n", kLeft + plot_w / 2, kTop + plot_h / 2,
                           report::outside_text(s.no_gpu_samples.empty() ? "no memory samples" : "no GPU samples: " + s.no_gpu_samples,
                                                report::Medium::svg));
    std::size_t k = 0;
    for (const auto& m : s.series) {
        const char* colour = kColours[k % std::size(kColours)];
        std::string points;
        for (const auto& p : thin(m.points)) points += fmt::format("{:.1f},{:.1f} ", x(p.t), y(p.y));
        svg += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"{}\"><title>{}</title></polyline>\n",
                           colour, m.is_gpu ? " stroke-dasharray=\"6 3\"" : "", points, report::outside_text(m.label, report::Medium::svg));
        const double ly = kTop + 16 + 34 * static_cast<double>(k);
        svg += fmt::format(
            "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" stroke-width=\"3\"/>"
            "<text x=\"{4}\" y=\"{5:.1f}\">{6}</text><text x=\"{4}\" y=\"{7:.1f}\" fill=\"#555\">{8}</text>\n",
            kWidth - kRight + 12, kWidth - kRight + 32, ly - 4, colour, kWidth - kRight + 38, ly,
            report::outside_text(m.label, report::Medium::svg), ly + 14,
            report::outside_text(to_string(m.trend.verdict), report::Medium::svg));
        ++k;
    }
    svg += "</svg>\n";
    return svg;
}

}  // namespace cudoctor::watch
