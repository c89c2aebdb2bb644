#include "watch/trend.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace cudoctor::watch {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kHour = 3600.0;
constexpr std::size_t kMinSamples = 8;
constexpr std::size_t kMaxRobustPoints = 400;  // Theil–Sen looks at pairs: n² / 2

struct Fit {
    double slope = 0, intercept = 0, stderr_ = 0;
    std::size_t n = 0;
    bool ok = false;
};

/// Two-sided 95 % quantile of Student's t with `df` degrees of freedom.
double t95(std::size_t df) {
    static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                        2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                        2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df == 0) return INFINITY;
    if (df <= 30) return kTable[df - 1];
    return 1.960 + 2.4 / static_cast<double>(df);  // close to the table past 30 (2.00 at 60, 1.98 at 120)
}

/// Least squares over points[from, to); the standard error is widened by the lag-1
/// autocorrelation of the residuals (effective sample size n(1-r)/(1+r)).
Fit least_squares(std::span<const Point> p) {
    Fit f;
    f.n = p.size();
    if (f.n < 3) return f;
    double mt = 0, my = 0;
    for (const auto& q : p) {
        mt += q.t;
        my += q.y;
    }
    mt /= static_cast<double>(f.n);
    my /= static_cast<double>(f.n);
    double sxx = 0, sxy = 0;
    for (const auto& q : p) {
        sxx += (q.t - mt) * (q.t - mt);
        sxy += (q.t - mt) * (q.y - my);
    }
    if (sxx <= 0) return f;
    f.slope = sxy / sxx;
    f.intercept = my - f.slope * mt;
    double ssr = 0, lag = 0, previous = 0;
    for (std::size_t i = 0; i < f.n; ++i) {
        const double e = p[i].y - (f.intercept + f.slope * p[i].t);
        ssr += e * e;
        if (i > 0) lag += e * previous;
        previous = e;
    }
    double se = std::sqrt(ssr / static_cast<double>(f.n - 2) / sxx);
    if (ssr > 0) {
        const double r = std::clamp(lag / ssr, 0.0, 0.98);
        se *= std::sqrt((1 + r) / (1 - r));
    }
    f.stderr_ = se;
    f.ok = true;
    return f;
}

/// Median of pairwise slopes (on at most kMaxRobustPoints evenly chosen points).
double theil_sen(std::span<const Point> p) {
    std::vector<Point> chosen;
    const std::size_t step = p.size() > kMaxRobustPoints ? (p.size() + kMaxRobustPoints - 1) / kMaxRobustPoints : 1;
    for (std::size_t i = 0; i < p.size(); i += step) chosen.push_back(p[i]);
    std::vector<double> slopes;
    slopes.reserve(chosen.size() * chosen.size() / 2);
    for (std::size_t i = 0; i < chosen.size(); ++i)
        for (std::size_t j = i + 1; j < chosen.size(); ++j)
            if (chosen[j].t > chosen[i].t) slopes.push_back((chosen[j].y - chosen[i].y) / (chosen[j].t - chosen[i].t));
    if (slopes.empty()) return 0;
    auto mid = slopes.begin() + static_cast<std::ptrdiff_t>(slopes.size() / 2);
    std::nth_element(slopes.begin(), mid, slopes.end());
    return *mid;
}

double median_level(std::span<const Point> p) {
    std::vector<double> ys;
    for (const auto& q : p) ys.push_back(q.y);
    auto mid = ys.begin() + static_cast<std::ptrdiff_t>(ys.size() / 2);
    std::nth_element(ys.begin(), mid, ys.end());
    return *mid;
}

double min_growth(double level) { return std::max(8 * kMiB, 0.02 * std::abs(level)); }

void fill_interval(Trend& t, const Fit& f) {
    t.slope = f.slope;
    t.slope_stderr = f.stderr_;
    const double q = f.n > 2 ? t95(f.n - 2) : INFINITY;
    t.ci_low = f.slope - q * f.stderr_;
    t.ci_high = f.slope + q * f.stderr_;
}

std::string per_hour(double bytes_per_second) {
    const double mib = bytes_per_second * kHour / kMiB;
    if (std::abs(mib) >= 1024) return fmt::format("{:+.2f} GiB/hour", mib / 1024);
    return fmt::format("{:+.1f} MiB/hour", mib);
}

/// The sawtooth path: troughs after each sharp drop decide.
void sawtooth(std::span<const Point> p, const std::vector<std::size_t>& drops, Trend& t) {
    t.verdict = TrendVerdict::sawtooth;
    std::vector<Point> troughs;
    for (std::size_t k = 0; k < drops.size(); ++k) {
        const std::size_t from = drops[k];
        const std::size_t to = k + 1 < drops.size() ? drops[k + 1] : p.size();
        auto it = std::min_element(p.begin() + static_cast<std::ptrdiff_t>(from), p.begin() + static_cast<std::ptrdiff_t>(to),
                                   [](const Point& a, const Point& b) { return a.y < b.y; });
        troughs.push_back(*it);
    }
    t.since = troughs.front().t;
    t.window_first = troughs.front().y;
    const double level = median_level(p);
    if (troughs.size() >= 3) {
        const Fit f = least_squares(troughs);
        if (f.ok) {
            fill_interval(t, f);
            t.robust_slope = theil_sen(troughs);
            const double growth = f.slope * (troughs.back().t - troughs.front().t);
            if (t.ci_low > 0 && growth >= min_growth(level) && t.robust_slope > 0) {
                t.verdict = TrendVerdict::leak;
                t.reason = fmt::format("{} drops (a caching allocator's sawtooth) with troughs climbing {} ({} → {})", drops.size(),
                                       per_hour(f.slope), bytes_text(troughs.front().y), bytes_text(troughs.back().y));
                return;
            }
        }
    } else {
        const double dt = troughs.back().t - troughs.front().t;
        t.slope = dt > 0 ? (troughs.back().y - troughs.front().y) / dt : 0;
        t.robust_slope = t.slope;
    }
    t.reason = fmt::format("{} drops back to {}–{} (the sawtooth of a caching allocator); troughs level: not a leak", drops.size(),
                           bytes_text(std::min_element(troughs.begin(), troughs.end(), [](auto& a, auto& b) { return a.y < b.y; })->y),
                           bytes_text(std::max_element(troughs.begin(), troughs.end(), [](auto& a, auto& b) { return a.y < b.y; })->y));
}

/// Sums for least-squares fits of any run of points in O(1): prefix sums of t, y, t², y², ty
/// (t and y shifted to the first point and y in MiB, to keep the differences exact enough).
class PrefixFits {
  public:
    explicit PrefixFits(std::span<const Point> p) : m_sums(p.size() + 1) {
        for (std::size_t i = 0; i < p.size(); ++i) {
            const double t = p[i].t - p.front().t, y = (p[i].y - p.front().y) / kMiB;
            const auto& a = m_sums[i];
            m_sums[i + 1] = {a[0] + t, a[1] + y, a[2] + t * t, a[3] + y * y, a[4] + t * y};
        }
    }
    /// Residual sum of squares of the line fitted to points [i, j).
    double ssr(std::size_t i, std::size_t j) const {
        const double n = static_cast<double>(j - i);
        double d[5];
        for (int k = 0; k < 5; ++k) d[k] = m_sums[j][k] - m_sums[i][k];
        const double sxx = d[2] - d[0] * d[0] / n, sxy = d[4] - d[0] * d[1] / n, syy = d[3] - d[1] * d[1] / n;
        return std::max(0.0, syy - (sxx > 0 ? sxy * sxy / sxx : 0));
    }

  private:
    std::vector<std::array<double, 5>> m_sums;
};

/// The start of the last regime: the series is split in two where two fitted lines explain it
/// best, as long as the split explains far more than noise would (F > 20 for the two extra
/// parameters), and the right part is split again (at most four times: a warm-up, a flat
/// stretch, then the growth).
std::size_t regime_start(std::span<const Point> p) {
    const PrefixFits fits(p);
    std::size_t start = 0;
    for (int round = 0; round < 4; ++round) {
        const std::size_t n = p.size() - start;
        const std::size_t m = std::max<std::size_t>(5, n / 20);
        if (n < 2 * m || n < 9) break;
        const double whole = fits.ssr(start, p.size());
        double best = INFINITY;
        std::size_t cut = 0;
        for (std::size_t c = start + m; c + m <= p.size(); ++c) {
            const double split = fits.ssr(start, c) + fits.ssr(c, p.size());
            if (split < best) {
                best = split;
                cut = c;
            }
        }
        const double f = ((whole - best) / 2) / std::max(best / static_cast<double>(n - 4), 1e-12);
        if (!(f > 20)) break;
        start = cut;
    }
    return start;
}

}  // namespace

const char* to_string(TrendVerdict verdict) {
    switch (verdict) {
        case TrendVerdict::too_short: return "too-short";
        case TrendVerdict::flat: return "flat";
        case TrendVerdict::leak: return "leak";
        case TrendVerdict::shrinking: return "shrinking";
        case TrendVerdict::sawtooth: return "sawtooth";
    }
    return "?";
}

std::string clock_text(double seconds) {
    if (!(seconds >= 0)) seconds = 0;
    if (seconds >= 1 && seconds < 60) return fmt::format("0:{:02d}", static_cast<int>(seconds));
    const auto minutes = static_cast<long>(seconds / 60);
    return fmt::format("{:02d}:{:02d}", minutes / 60, minutes % 60);
}

Trend analyse_memory(std::span<const Point> input) {
    std::vector<Point> p;
    for (const auto& q : input)
        if (std::isfinite(q.t) && std::isfinite(q.y)) p.push_back(q);
    std::stable_sort(p.begin(), p.end(), [](const Point& a, const Point& b) { return a.t < b.t; });
    Trend t;
    t.samples = p.size();
    if (p.empty()) {
        t.reason = "no samples";
        return t;
    }
    t.first = p.front().y;
    t.last = p.back().y;
    t.until = p.back().t;
    t.low = std::min_element(p.begin(), p.end(), [](auto& a, auto& b) { return a.y < b.y; })->y;
    t.high = std::max_element(p.begin(), p.end(), [](auto& a, auto& b) { return a.y < b.y; })->y;
    if (p.size() < kMinSamples || !(p.back().t > p.front().t)) {
        t.reason = fmt::format("{} samples: at least {} are needed for a trend", p.size(), kMinSamples);
        return t;
    }

    const double range = t.high - t.low;
    std::vector<std::size_t> drops;
    for (std::size_t i = 1; i < p.size(); ++i)
        if (p[i - 1].y - p[i].y >= std::max(0.25 * range, 16 * kMiB)) drops.push_back(i);
    t.drops = drops.size();
    if (drops.size() >= 2) {
        sawtooth(p, drops, t);
        return t;
    }

    const std::size_t start = regime_start(p);
    const std::span<const Point> window = std::span<const Point>(p).subspan(start);
    t.since = window.front().t;
    t.window_first = window.front().y;
    const Fit f = least_squares(window);
    const double level = median_level(window);
    t.verdict = TrendVerdict::flat;
    if (!f.ok) {
        t.reason = "no spread in time";
        return t;
    }
    fill_interval(t, f);
    t.robust_slope = theil_sen(window);
    const double span = window.back().t - window.front().t;
    const double needed = min_growth(level);
    if (t.ci_low > 0 && f.slope * span >= needed && t.robust_slope * span >= needed) {
        t.verdict = TrendVerdict::leak;
        t.reason = fmt::format("grows {} ({} → {} over {}); 95 % interval {} to {}", per_hour(f.slope), bytes_text(window.front().y),
                               bytes_text(window.back().y), clock_text(span), per_hour(t.ci_low), per_hour(t.ci_high));
    } else if (t.ci_high < 0 && -f.slope * span >= needed && -t.robust_slope * span >= needed) {
        t.verdict = TrendVerdict::shrinking;
        t.reason = fmt::format("shrinks {} over {}", per_hour(f.slope), clock_text(span));
    } else {
        t.reason = fmt::format("no growth that matters: {} over {} (95 % interval {} to {}; {} would matter)", bytes_text(f.slope * span),
                               clock_text(span), per_hour(t.ci_low), per_hour(t.ci_high), bytes_text(needed));
    }
    return t;
}

std::string describe(const Trend& t) {
    switch (t.verdict) {
        case TrendVerdict::too_short: return fmt::format("too short to tell ({} samples)", t.samples);
        case TrendVerdict::flat: {
            const double half = (t.ci_high - t.ci_low) / 2;
            return fmt::format("flat ({} ±{:.1f} MiB/hour) at {}", per_hour(t.slope), half * kHour / kMiB, bytes_text(t.last));
        }
        case TrendVerdict::leak:
            return fmt::format("{}{}, steady since {} ({} → {})", per_hour(t.slope), t.drops >= 2 ? " under a sawtooth" : "",
                               clock_text(t.since), bytes_text(t.window_first), bytes_text(t.last));
        case TrendVerdict::shrinking: return fmt::format("shrinking {} since {}", per_hour(t.slope), clock_text(t.since));
        case TrendVerdict::sawtooth:
            return fmt::format("sawtooth {}–{} with level troughs: a caching allocator, not a leak", bytes_text(t.low), bytes_text(t.high));
    }
    return "?";
}

}  // namespace cudoctor::watch
