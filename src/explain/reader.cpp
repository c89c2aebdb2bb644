// The Reader: catalog rows → one formats::LogScanner → causes, root first.
#include <algorithm>
#include <tuple>

#include "explain/causes.hpp"
#include "explain/explain.hpp"
#include "formats/log_scan.hpp"

namespace cudoctor::explain {

namespace {

constexpr std::size_t kMaxMatchedLines = 10;

int strength(std::string_view confidence) { return confidence == "high" ? 2 : confidence == "medium" ? 1 : 0; }

}  // namespace

std::string Cause::value(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() || it->second.empty() ? std::string() : it->second.front();
}

Expected<Reader> Reader::create(std::vector<CatalogRow> rows) {
    std::vector<formats::LogPattern> patterns;
    patterns.reserve(rows.size());
    for (const auto& r : rows) patterns.push_back({r.pattern, r.literal, r.regex});
    auto scanner = formats::LogScanner::create(std::move(patterns));
    if (!scanner) return Unexpected<Error>(scanner.error());
    return Reader(std::move(rows), std::make_unique<formats::LogScanner>(std::move(*scanner)));
}

Reader::Reader(std::vector<CatalogRow> rows, std::unique_ptr<formats::LogScanner> scanner)
    : m_rows(std::move(rows)), m_scanner(std::move(scanner)) {}
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

void Reader::feed(std::string_view bytes) { m_scanner->feed(bytes); }
void Reader::finish() { m_scanner->finish(); }
void Reader::reset() { m_scanner->reset(); }
const std::string& Reader::error() const { return m_scanner->error(); }
std::size_t Reader::lines() const { return m_scanner->lines(); }
std::size_t Reader::bytes() const { return m_scanner->bytes(); }

std::vector<Cause> Reader::causes() const {
    // Which causes a high or medium row found.
    std::vector<int> best(all_causes().size(), -1);
    auto cause_index = [](std::string_view id) {
        const auto& all = all_causes();
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].id == id) return i;
        return all.size();
    };
    // A low signal in its setting (a low row and a context row of one cause, on any lines) is
    // one medium signal; context alone is nothing, and two low rows stay low: each is weak.
    std::vector<char> low(best.size(), 0), context(best.size(), 0);
    for (const auto& hit : m_scanner->hits()) {
        const auto& row = m_rows[hit.pattern];
        const auto ci = cause_index(row.cause);
        if (ci >= best.size()) continue;
        if (row.confidence == "context") {
            context[ci] = 1;
            continue;
        }
        best[ci] = std::max(best[ci], strength(row.confidence));
        low[ci] = low[ci] || row.confidence == "low";
    }
    for (std::size_t ci = 0; ci < best.size(); ++ci)
        if (best[ci] == 0 && low[ci] && context[ci]) best[ci] = 1;
    // A cause whose rows here are all low is named when a cause it is found with is present.
    for (std::size_t ci = 0; ci < best.size(); ++ci) {
        if (best[ci] != 0) continue;
        for (const auto& with : all_causes()[ci].found_with)
            if (const auto wi = cause_index(with); wi < best.size() && best[wi] >= 1) best[ci] = 1;
    }
    std::vector<Cause> causes;
    for (std::size_t ci = 0; ci < best.size(); ++ci) {
        if (best[ci] < 1) continue;
        const auto& info = all_causes()[ci];
        Cause c;
        c.id = info.id;
        c.rank = info.rank;
        c.layer = info.layer;
        c.confidence = best[ci] == 2 ? "high" : "medium";
        c.title = info.title;
        c.explanation = info.explanation;
        for (auto f : info.fix) c.fix.emplace_back(f);
        std::vector<MatchedLine> lines;
        // Lines, not row matches: one line two rows match is one matching line. The scanner keeps
        // a few hits per row; where it kept them all the count is exact, else it is a floor.
        std::size_t most = 0;
        bool all_kept = true;
        for (std::size_t p = 0; p < m_rows.size(); ++p) {
            if (m_rows[p].cause != info.id) continue;
            const auto count = m_scanner->match_count(p);
            const auto kept = static_cast<std::size_t>(std::count_if(m_scanner->hits().begin(), m_scanner->hits().end(),
                                                                     [&](const formats::LogHit& h) { return h.pattern == p; }));
            most = std::max(most, count);
            all_kept = all_kept && kept == count;
        }
        for (const auto& hit : m_scanner->hits()) {
            const auto& row = m_rows[hit.pattern];
            if (row.cause != info.id) continue;
            lines.push_back({hit.line, hit.text, row.pattern});
            for (std::size_t g = 0; g < hit.groups.size() && g < row.captures.size(); ++g) {
                if (row.captures[g] == "-" || hit.groups[g].empty()) continue;
                auto& v = c.values[row.captures[g]];
                if (std::find(v.begin(), v.end(), hit.groups[g]) == v.end()) v.push_back(hit.groups[g]);
            }
        }
        std::stable_sort(lines.begin(), lines.end(), [](const MatchedLine& a, const MatchedLine& b) { return a.line < b.line; });
        std::size_t distinct = 0;
        for (std::size_t i = 0; i < lines.size(); ++i) distinct += i == 0 || lines[i].line != lines[i - 1].line;
        c.match_count = std::max(most, distinct);
        c.match_count_exact = all_kept;
        for (auto& l : lines) {
            if (!c.matched_lines.empty() && c.matched_lines.back().line == l.line) continue;  // one line, two rows
            if (c.matched_lines.size() == kMaxMatchedLines) break;
            c.matched_lines.push_back(std::move(l));
        }
        causes.push_back(std::move(c));
    }
    // all_causes() is in rank order, so `causes` is too. A cause that follows from another one
    // present is its consequence, whatever the two ranks (a container runtime failing is a
    // consequence of the host's driver mismatch it reports), and is listed after its root.
    const auto follows = [](const Cause& c, const Cause& root) {
        const auto* info = find_cause(c.id);
        return std::find(info->follows_from.begin(), info->follows_from.end(), root.id) != info->follows_from.end();
    };
    for (int pass = 0; pass < 2; ++pass)  // a root's own root is known by the second pass
        for (auto& c : causes)
            for (const auto& other : causes)
                if (&other != &c && follows(c, other) && !follows(other, c)) {
                    c.consequence_of = other.consequence_of.empty() || other.consequence_of == c.id ? other.id : other.consequence_of;
                    break;
                }
    // The order key, computed before sorting (a comparison must not read the vector it sorts).
    std::vector<std::pair<std::tuple<int, bool, int>, Cause>> keyed;
    for (const auto& c : causes) {
        int root_rank = c.rank;
        for (const auto& r : causes)
            if (r.id == c.consequence_of) root_rank = r.rank;
        keyed.emplace_back(std::tuple(root_rank, !c.consequence_of.empty(), c.rank), c);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < causes.size(); ++i) causes[i] = std::move(keyed[i].second);
    return causes;
}

}  // namespace cudoctor::explain
