#include "kb/toolkit_release.hpp"

#include <algorithm>

namespace cudoctor::kb {
namespace {

std::vector<Version> releases_of_minor(const Kb& kb, const Version& minor) {
    std::vector<Version> out;
    for (const auto& t : kb.toolkit_releases())
        if (t.toolkit.truncated(2) == minor.truncated(2)) out.push_back(t.toolkit);
    return out;
}

void sort_unique(std::vector<Version>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

std::vector<Version> possible_releases(const Kb& kb, const snapshot::Toolkit& tk) {
    const auto release = Version::parse(tk.release);
    if (release && release->size() >= 3) return {*release};

    std::vector<std::pair<std::string, Version>> components;
    for (const auto& c : tk.components)
        if (auto v = Version::parse(c.version)) components.emplace_back(c.name, *v);
    const auto version = Version::parse(tk.version);
    const bool has_nvcc = std::any_of(components.begin(), components.end(), [](const auto& c) { return c.first == "cuda_nvcc"; });
    if (!has_nvcc && version && version->size() >= 3) components.emplace_back("cuda_nvcc", *version);

    // Releases every known component agrees on; the union when they disagree (a patched part).
    std::optional<std::vector<Version>> agreed;
    std::vector<Version> any;
    for (const auto& [name, v] : components) {
        auto rs = kb.releases_with_component(name, v);
        if (release) std::erase_if(rs, [&](const Version& r) { return r.truncated(2) != release->truncated(2); });
        if (rs.empty()) continue;
        any.insert(any.end(), rs.begin(), rs.end());
        if (!agreed) {
            agreed = rs;
        } else {
            std::vector<Version> both;
            for (const auto& r : *agreed)
                if (std::find(rs.begin(), rs.end(), r) != rs.end()) both.push_back(r);
            agreed = std::move(both);
        }
    }
    if (agreed && !agreed->empty()) return *agreed;
    if (!any.empty()) {
        sort_unique(any);
        return any;
    }
    const auto minor = release ? release : version;
    if (!minor) return {};
    auto all = releases_of_minor(kb, *minor);
    if (all.empty()) all.push_back(*minor);  // a minor the table does not know: the queries answer nullopt
    sort_unique(all);
    return all;
}

std::optional<Version> min_driver_for(const Kb& kb, const snapshot::Toolkit& tk, DriverOs os) {
    std::optional<Version> lowest;
    for (const auto& r : possible_releases(kb, tk))
        if (auto d = kb.min_driver_for(r, os); d && (!lowest || *d < *lowest)) lowest = d;
    return lowest;
}

std::optional<int> max_gcc_for(const Kb& kb, const snapshot::Toolkit& tk) {
    std::optional<int> highest;
    for (const auto& r : possible_releases(kb, tk))
        if (auto g = kb.max_gcc_for(r); g && (!highest || *g > *highest)) highest = g;
    return highest;
}

std::optional<Version> lenient_release(const Kb& kb, const snapshot::Toolkit& tk) {
    std::optional<Version> best, best_driver;
    for (const auto& r : possible_releases(kb, tk)) {
        const auto d = kb.min_driver_for(r);
        if (!best || (d && (!best_driver || *d < *best_driver))) {
            best = r;
            best_driver = d;
        }
    }
    if (best && best->size() >= 3) return best;
    return Version::parse(tk.version);
}

std::string release_label(const Kb& kb, const snapshot::Toolkit& tk) {
    if (!tk.release.empty()) return tk.release;
    bool known = false;
    for (const auto& c : tk.components)
        if (auto v = Version::parse(c.version); v && !kb.releases_with_component(c.name, *v).empty()) known = true;
    if (!known) return {};
    const auto rs = possible_releases(kb, tk);
    return rs.size() == 1 ? rs.front().str() : std::string();
}

}  // namespace cudoctor::kb
