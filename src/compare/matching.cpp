#include "compare/matching.hpp"

#include <algorithm>
#include <unordered_map>

#include "common/text.hpp"

namespace cudoctor::compare {

Expected<void> NameMap::add(std::string_view rule) {
    const auto eq = rule.find('=');
    if (eq == std::string_view::npos) return fail(Errc::usage, "map rule '" + std::string(rule) + "' is not OLD=NEW");
    Rule r{std::string(text::trim(rule.substr(0, eq))), std::string(text::trim(rule.substr(eq + 1)))};
    const auto stars = [](const std::string& s) { return std::count(s.begin(), s.end(), '*'); };
    const bool from_star = r.from.ends_with('*'), to_star = r.to.ends_with('*');
    if (stars(r.from) > 1 || stars(r.to) > 1 || (stars(r.from) == 1 && !from_star) || (stars(r.to) == 1 && !to_star) || from_star != to_star)
        return fail(Errc::usage, "map rule '" + std::string(rule) + "': '*' may only end both sides (a prefix rule)");
    if (from_star) {
        r.prefix = true;
        r.from.pop_back();
        r.to.pop_back();
    } else if (r.from.empty() || r.to.empty()) {
        return fail(Errc::usage, "map rule '" + std::string(rule) + "' has an empty side");
    }
    m_rules.push_back(std::move(r));
    return {};
}

Expected<void> NameMap::add_file(std::string_view content) {
    std::size_t number = 0;
    for (auto line : text::lines(content)) {
        ++number;
        if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        line = text::trim(line);
        if (line.empty()) continue;
        std::string rule(line);
        if (rule.find('=') == std::string::npos) {
            const auto space = rule.find_first_of(" \t");
            if (space == std::string::npos)
                return fail(Errc::parse, "line " + std::to_string(number) + ": '" + rule + "' is not OLD=NEW or OLD NEW");
            rule = rule.substr(0, space) + "=" + std::string(text::trim(std::string_view(rule).substr(space)));
        }
        if (auto ok = add(rule); !ok) return fail(Errc::parse, "line " + std::to_string(number) + ": " + ok.error().message);
    }
    return {};
}

std::string NameMap::to_test(std::string_view name) const {
    for (const auto& r : m_rules)
        if (!r.prefix && r.from == name) return r.to;
    for (const auto& r : m_rules)
        if (r.prefix && name.starts_with(r.from)) return r.to + std::string(name.substr(r.from.size()));
    return std::string(name);
}

Pairing pair_tensors(const std::vector<formats::TensorView>& ref, const std::vector<formats::TensorView>& test, const NameMap& map,
                     bool sort_by_name) {
    std::unordered_map<std::string_view, std::size_t> test_index;
    for (std::size_t i = 0; i < test.size(); ++i) test_index.emplace(test[i].name, i);
    Pairing out;
    std::vector<bool> used(test.size(), false);
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const auto it = test_index.find(map.to_test(ref[i].name));
        if (it == test_index.end() || used[it->second]) {
            out.only_ref.push_back(ref[i].name);
            continue;
        }
        used[it->second] = true;
        out.pairs.push_back({i, it->second});
    }
    for (std::size_t i = 0; i < test.size(); ++i)
        if (!used[i]) out.only_test.push_back(test[i].name);
    if (sort_by_name)
        std::stable_sort(out.pairs.begin(), out.pairs.end(), [&](const auto& a, const auto& b) { return ref[a.ref].name < ref[b.ref].name; });
    return out;
}

}  // namespace cudoctor::compare
