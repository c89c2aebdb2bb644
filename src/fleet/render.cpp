#include "fleet/render.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>
#include <type_traits>

#include "fleet/hostlist.hpp"
#include "report/style.hpp"
#include "snapshot/snapshot.hpp"
#include "snapshot/taken_at.hpp"

namespace cudoctor::fleet {
namespace {

/// Node names and files come from the snapshots: terminal-safe for the text and Markdown views
/// alike (Markdown cells escape '|' on top).
std::string safe(std::string_view text) { return report::outside_text(text, report::Medium::terminal); }

std::vector<std::string> names_of(const FleetReport& r, const std::vector<std::size_t>& idx) {
    std::vector<std::string> names;
    names.reserve(idx.size());
    for (auto i : idx) names.push_back(safe(r.nodes[i].name));
    return names;
}

// "gpu[01-40],login1", cut at a comma past `max` characters.
std::string node_list(const FleetReport& r, const std::vector<std::size_t>& idx, std::size_t max) {
    std::string list = compress_hostlist(names_of(r, idx));
    if (list.size() <= max) return list;
    std::size_t cut = list.rfind(',', max);
    if (cut == std::string::npos || cut == 0) cut = max;
    return list.substr(0, cut) + ", … (" + std::to_string(idx.size()) + " nodes in all)";
}

std::string plural(std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

constexpr std::string_view kDefaultMark = " (default)";

/// The toolkit marked default among toolkit items ("12.4.131 (default)" → "12.4.131"), or "".
std::string default_of(const std::vector<std::string>& items) {
    for (const auto& i : items)
        if (i.ends_with(kDefaultMark)) return i.substr(0, i.size() - kDefaultMark.size());
    return {};
}

std::vector<std::string> without_default_mark(const std::vector<std::string>& items) {
    std::vector<std::string> out;
    out.reserve(items.size());
    for (const auto& i : items) out.push_back(i.ends_with(kDefaultMark) ? i.substr(0, i.size() - kDefaultMark.size()) : i);
    return out;
}

/// The items of `a` that `b` lacks. (Named apart from analysis.cpp's minus(): one unity unit.)
std::vector<std::string> items_not_in(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> out;
    for (const auto& x : a)
        if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x);
    return out;
}

// Toolkits in plain words: which is the default apart from which are installed, so a changed
// default reads "default toolkit 12.1.105 on these nodes, 12.4.131 on most", not as one
// version missing and extra at once.
std::string describe_toolkits(const Difference& d, bool baseline) {
    const auto mine = without_default_mark(d.items), theirs = without_default_mark(d.reference);
    const auto my_default = default_of(d.items), their_default = default_of(d.reference);
    std::vector<std::string> parts;
    if (my_default != their_default) {
        const std::string on_these =
            my_default.empty() ? "no default toolkit on these nodes" : "default toolkit " + my_default + " on these nodes";
        const std::string elsewhere = their_default.empty() ? "none" : their_default;
        parts.push_back(on_these + ", " + elsewhere + (baseline ? " on the baseline" : " on most"));
    }
    if (auto missing = items_not_in(theirs, mine); !missing.empty()) parts.push_back("missing " + layer_value(missing));
    if (auto extra = items_not_in(mine, theirs); !extra.empty()) parts.push_back("extra " + layer_value(extra));
    std::string s = "toolkits:";
    for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? "; " : " ") + parts[i];
    return s;
}

// One line per kind of difference: "driver 555.42.02 proprietary instead of 550.54.14 proprietary",
// "toolkits: missing 12.4; extra 12.1".
std::string describe(const Difference& d, bool baseline) {
    const char* ref = baseline ? "baseline" : "majority";
    if (d.layer == Layer::toolkits) return describe_toolkits(d, baseline);
    std::string s(to_string(d.layer));
    if (d.items.size() <= 1 && d.reference.size() <= 1)
        return s + ": " + layer_value(d.items) + " (" + ref + ": " + layer_value(d.reference) + ")";
    s += ":";
    if (!d.missing.empty()) s += " missing " + layer_value(d.missing) + (d.extra.empty() ? "" : ";");
    if (!d.extra.empty()) s += " extra " + layer_value(d.extra);
    return s;
}

// Nodes that differ in exactly the same way, together (most nodes first).
struct DriftGroup {
    std::vector<std::string> lines;
    std::vector<std::size_t> nodes;
};
std::vector<DriftGroup> group_drift(const FleetReport& r) {
    std::map<std::vector<std::string>, std::vector<std::size_t>> by_lines;
    for (const auto& d : r.drift) {
        std::vector<std::string> lines;
        for (const auto& diff : d.differences) lines.push_back(describe(diff, r.baseline.has_value()));
        by_lines[lines].push_back(d.node);
    }
    std::vector<DriftGroup> groups;
    groups.reserve(by_lines.size());
    for (auto& [lines, nodes] : by_lines) groups.push_back({lines, std::move(nodes)});
    std::stable_sort(groups.begin(), groups.end(), [](const DriftGroup& a, const DriftGroup& b) { return a.nodes.size() > b.nodes.size(); });
    return groups;
}

/// "3 nodes: gpu[01-03]"; when the nodes' own severities differ, each severity with its nodes,
/// worst first: "3 nodes: error on gpu01; warning on gpu[02-03]".
std::string finding_nodes(const FleetReport& r, const RuleGroup& f, std::size_t max) {
    std::string s = plural(f.nodes.size(), "node") + ": ";
    if (!f.mixed_severity()) return s + node_list(r, f.nodes, max);
    std::map<snapshot::Severity, std::vector<std::size_t>, std::greater<>> by_severity;
    for (std::size_t i = 0; i < f.nodes.size() && i < f.node_severities.size(); ++i)
        by_severity[f.node_severities[i]].push_back(f.nodes[i]);
    bool first = true;
    for (const auto& [severity, idx] : by_severity) {
        s += (first ? "" : "; ") + std::string(snapshot::to_string(severity)) + " on " + node_list(r, idx, max);
        first = false;
    }
    return s;
}

std::string reference_name(const FleetReport& r) {
    return r.baseline ? "baseline " + safe(r.baseline->name) + " (" + safe(r.baseline->file) + ")" : std::string("majority");
}

std::string headline(const FleetReport& r) {
    std::string s = plural(r.nodes.size(), "node");
    if (!r.unreadable.empty()) s += ", " + std::to_string(r.unreadable.size()) + " unreadable";
    if (!r.stale.empty()) s += ", " + std::to_string(r.stale.size()) + " stale";
    s += "; " + std::to_string(r.drift.size()) + " differ from the " + reference_name(r);
    return s;
}

std::string stale_reason(const FleetReport& r, const StaleNode& s) {
    const auto& n = r.nodes[s.node];
    if (!s.age_seconds) return n.taken_at.empty() ? "no time stamp (an older cudoctor)" : "unreadable time stamp \"" + n.taken_at + "\"";
    return n.taken_at + ", " + format_duration(*s.age_seconds) + " before the newest";
}

}  // namespace

std::string format_duration(std::int64_t seconds) {
    if (seconds < 0) seconds = -seconds;
    struct Unit {
        std::int64_t s;
        const char* name;
    };
    static constexpr Unit kUnits[] = {{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}};
    std::string out;
    int shown = 0;
    for (const auto& u : kUnits) {
        if (seconds >= u.s && shown < 2) {
            out += std::to_string(seconds / u.s) + u.name;
            seconds %= u.s;
            ++shown;
        } else if (shown) {
            ++shown;  // 1d0h5m prints as 1d: two adjacent units at most
        }
    }
    return out.empty() ? "0s" : out;
}

std::string verdict_line(const FleetReport& r) {
    std::size_t errors = 0, warnings = 0;
    for (const auto& f : r.findings) {
        if (f.severity == snapshot::Severity::error) ++errors;
        else if (f.severity == snapshot::Severity::warning) ++warnings;
    }
    std::string s = "cudoctor fleet: " + headline(r);
    if (errors || warnings) s += "; findings: " + plural(errors, "error rule") + ", " + plural(warnings, "warning rule");
    return s;
}

namespace {

void write_text(const FleetReport& r, const RenderOptions& o, std::ostream& out) {
    out << "cudoctor fleet: " << headline(r) << "\n";
    if (r.newest) out << "  newest snapshot: " << snapshot::format_utc(*r.newest) << "\n";
    if (!r.nodes.empty()) {
        out << "\nConfiguration (" << (r.baseline ? reference_name(r) : "majority of " + plural(r.nodes.size(), "node")) << ")\n";
        for (const auto& l : r.layers) {
            out << "  " << to_string(l.layer) << std::string(12 - to_string(l.layer).size(), ' ') << layer_value(l.reference) << "  ["
                << l.agree << "/" << r.nodes.size() << (l.tie ? ", tied" : "") << "]\n";
            for (const auto& v : l.variants) {
                if (v.items == l.reference) continue;
                out << "      also: " << layer_value(v.items) << "  [" << v.nodes.size() << "] " << node_list(r, v.nodes, o.max_list_chars)
                    << "\n";
            }
        }
    }
    if (!r.drift.empty()) {
        out << "\nNodes that differ (" << r.drift.size() << ")\n";
        for (const auto& g : group_drift(r)) {
            out << "  " << node_list(r, g.nodes, o.max_list_chars) << "\n";
            for (const auto& line : g.lines) out << "      " << line << "\n";
        }
    }
    if (!r.findings.empty()) {
        out << "\nFindings by rule (" << r.findings.size() << ")\n";
        for (const auto& f : r.findings) {
            const auto severity = snapshot::to_string(f.severity);
            out << "  " << severity << std::string(severity.size() < 8 ? 8 - severity.size() : 1, ' ') << f.id << "  " << f.title
                << "\n      " << finding_nodes(r, f, o.max_list_chars) << "\n";
        }
    }
    if (!r.stale.empty()) {
        out << "\nStale snapshots (older than " << format_duration(r.stale_after_seconds) << " before the newest)\n";
        for (const auto& s : r.stale) out << "  " << safe(r.nodes[s.node].name) << "  " << stale_reason(r, s) << "\n";
    }
    if (!r.unreadable.empty()) {
        out << "\nUnreadable snapshots (" << r.unreadable.size() << ")\n";
        for (const auto& u : r.unreadable) out << "  " << safe(u.file) << ": " << safe(u.message) << "\n";
    }
}

}  // namespace

void render_text(const FleetReport& r, const RenderOptions& o, std::ostream& out) {
    // Versions, titles, time stamps and names all come from the snapshots, and the view's own
    // words hold no control byte: the finished view goes through the one escape, line by line.
    std::ostringstream text;
    write_text(r, o, text);
    out << report::outside_lines(text.str());
}

void render_markdown(const FleetReport& r, const RenderOptions& o, std::ostream& out) {
    using report::markdown_cell;
    using report::markdown_code;
    out << "## cudoctor fleet\n\n" << markdown_cell(headline(r)) << "\n";
    if (r.newest) out << "\nNewest snapshot: `" << snapshot::format_utc(*r.newest) << "`\n";
    if (!r.nodes.empty()) {
        out << "\n### Configuration (" << markdown_cell(r.baseline ? reference_name(r) : "majority") << ")\n\n"
            << "| layer | reference | nodes | other configurations |\n| --- | --- | --- | --- |\n";
        for (const auto& l : r.layers) {
            std::string others;
            for (const auto& v : l.variants) {
                if (v.items == l.reference) continue;
                others += (others.empty() ? "" : "<br>") + markdown_cell(layer_value(v.items)) + " — " + std::to_string(v.nodes.size()) +
                          ": " + markdown_code(node_list(r, v.nodes, o.max_list_chars));
            }
            out << "| " << to_string(l.layer) << " | " << markdown_cell(layer_value(l.reference)) << " | " << l.agree << "/"
                << r.nodes.size() << (l.tie ? " (tied)" : "") << " | " << others << " |\n";
        }
    }
    if (!r.drift.empty()) {
        out << "\n### Nodes that differ (" << r.drift.size() << ")\n\n";
        for (const auto& g : group_drift(r)) {
            out << "- " << markdown_code(node_list(r, g.nodes, o.max_list_chars)) << "\n";
            for (const auto& line : g.lines) out << "  - " << markdown_cell(line) << "\n";
        }
    }
    if (!r.findings.empty()) {
        out << "\n### Findings by rule\n\n| severity | rule | what | nodes |\n| --- | --- | --- | --- |\n";
        for (const auto& f : r.findings)
            out << "| " << snapshot::to_string(f.severity) << " | " << markdown_code(f.id) << " | " << markdown_cell(f.title) << " | "
                << (f.mixed_severity() ? markdown_cell(finding_nodes(r, f, o.max_list_chars))
                                       : std::to_string(f.nodes.size()) + ": " + markdown_code(node_list(r, f.nodes, o.max_list_chars)))
                << " |\n";
    }
    if (!r.stale.empty()) {
        out << "\n### Stale snapshots (older than " << format_duration(r.stale_after_seconds) << " before the newest)\n\n";
        for (const auto& s : r.stale)
            out << "- " << markdown_code(r.nodes[s.node].name) << ": " << markdown_cell(stale_reason(r, s)) << "\n";
    }
    if (!r.unreadable.empty()) {
        out << "\n### Unreadable snapshots (" << r.unreadable.size() << ")\n\n";
        for (const auto& u : r.unreadable) out << "- " << markdown_code(u.file) << ": " << markdown_cell(u.message) << "\n";
    }
}

nlohmann::json to_json(const FleetReport& r) {
    using nlohmann::json;
    auto names = [&](const std::vector<std::size_t>& idx) { return json(names_of(r, idx)); };
    json j;
    j["schema"] = 1;
    j["kind"] = "cudoctor-fleet";
    j["node_count"] = r.nodes.size();
    j["reference"] =
        r.baseline ? json{{"kind", "baseline"}, {"node", r.baseline->name}, {"file", r.baseline->file}} : json{{"kind", "majority"}};
    j["newest"] = r.newest ? json(snapshot::format_utc(*r.newest)) : json(nullptr);
    j["stale_after_seconds"] = r.stale_after_seconds;
    json nodes = json::array();
    for (const auto& n : r.nodes) {
        json layers = json::object();
        for (auto l : kLayers) layers[std::string(to_string(l))] = n.items(l);
        json ids = json::array();
        for (const auto& f : n.findings) ids.push_back(f.id);
        nodes.push_back({{"name", n.name},
                         {"hostname", n.hostname},
                         {"file", n.file},
                         {"taken_at", n.taken_at},
                         {"tool_version", n.tool_version},
                         {"layers", std::move(layers)},
                         {"findings", std::move(ids)}});
    }
    j["nodes"] = std::move(nodes);
    json layers = json::array();
    for (const auto& l : r.layers) {
        json variants = json::array();
        for (const auto& v : l.variants) variants.push_back({{"items", v.items}, {"nodes", names(v.nodes)}});
        layers.push_back(
            {{"layer", to_string(l.layer)}, {"reference", l.reference}, {"agree", l.agree}, {"tie", l.tie}, {"variants", std::move(variants)}});
    }
    j["layers"] = std::move(layers);
    json drift = json::array();
    for (const auto& d : r.drift) {
        json diffs = json::array();
        for (const auto& x : d.differences)
            diffs.push_back(
                {{"layer", to_string(x.layer)}, {"items", x.items}, {"reference", x.reference}, {"missing", x.missing}, {"extra", x.extra}});
        drift.push_back({{"node", r.nodes[d.node].name}, {"file", r.nodes[d.node].file}, {"differences", std::move(diffs)}});
    }
    j["drift"] = std::move(drift);
    json findings = json::array();
    for (const auto& f : r.findings)
        findings.push_back({{"id", f.id},
                            {"severity", snapshot::to_string(f.severity)},
                            {"layer", snapshot::to_string(f.layer)},
                            {"title", f.title},
                            {"nodes", names(f.nodes)},
                            {"node_severities", [&] {
                                 json out = json::array();
                                 for (auto sev : f.node_severities) out.push_back(snapshot::to_string(sev));
                                 return out;
                             }()}});
    j["findings"] = std::move(findings);
    json stale = json::array();
    for (const auto& s : r.stale)
        stale.push_back({{"node", r.nodes[s.node].name},
                         {"file", r.nodes[s.node].file},
                         {"taken_at", r.nodes[s.node].taken_at},
                         {"age_seconds", s.age_seconds ? json(*s.age_seconds) : json(nullptr)}});
    j["stale"] = std::move(stale);
    json unreadable = json::array();
    for (const auto& u : r.unreadable) unreadable.push_back({{"file", u.file}, {"code", u.code}, {"message", u.message}});
    j["unreadable"] = std::move(unreadable);
    return j;
}

namespace {

// A JSON writer that writes what nlohmann's dump(2) writes: members in the order the caller gives
// them, which must be the sorted order of nlohmann's std::map objects.
class JsonWriter {
  public:
    explicit JsonWriter(std::string& out) : m_out(out) {}

    JsonWriter& begin_object() { return open('{'); }
    JsonWriter& end_object() { return close('}'); }
    JsonWriter& begin_array() { return open('['); }
    JsonWriter& end_array() { return close(']'); }
    /// A member's name; its value follows.
    JsonWriter& key(std::string_view name) {
        element();
        quoted(name);
        m_out += ": ";
        m_after_key = true;
        return *this;
    }
    JsonWriter& value(std::string_view s) {
        element();
        quoted(s);
        return *this;
    }
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(bool b) {
        element();
        m_out += b ? "true" : "false";
        return *this;
    }
    template <class Int>
    requires std::is_integral_v<Int> &&(!std::is_same_v<Int, bool>)JsonWriter& value(Int n) {
        element();
        m_out += std::to_string(n);
        return *this;
    }
    JsonWriter& null() {
        element();
        m_out += "null";
        return *this;
    }
    JsonWriter& strings(const std::vector<std::string>& list) {
        begin_array();
        for (const auto& s : list) value(s);
        return end_array();
    }

  private:
    // Before any value: in an array, the separator and the indentation; after a key, nothing.
    void element() {
        if (m_after_key) {
            m_after_key = false;
            return;
        }
        if (m_counts.empty()) return;
        if (m_counts.back()++ > 0) m_out += ',';
        m_out += '\n';
        m_out.append(2 * m_counts.size(), ' ');
    }
    JsonWriter& open(char c) {
        element();
        m_out += c;
        m_counts.push_back(0);
        return *this;
    }
    JsonWriter& close(char c) {
        const bool empty = m_counts.back() == 0;
        m_counts.pop_back();
        if (!empty) {
            m_out += '\n';
            m_out.append(2 * m_counts.size(), ' ');
        }
        m_out += c;
        return *this;
    }
    // Plain printable ASCII as it is; anything else (quotes, controls, UTF-8, invalid bytes)
    // through nlohmann's own escaping, so the bytes are its bytes.
    void quoted(std::string_view s) {
        const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
            const auto u = static_cast<unsigned char>(c);
            return u >= 0x20 && u < 0x7f && c != '"' && c != '\\';
        });
        if (plain) {
            m_out += '"';
            m_out += s;
            m_out += '"';
        } else {
            m_out += report::json_text(nlohmann::json(std::string(s)), -1);
        }
    }

    std::string& m_out;
    std::vector<std::size_t> m_counts;  ///< elements written so far, per open object or array
    bool m_after_key = false;
};

}  // namespace

void write_json(const FleetReport& r, std::ostream& out) {
    std::string text;
    JsonWriter w(text);
    // Written out in pieces: ten thousand nodes are megabytes of JSON.
    auto spill = [&] {
        if (text.size() < (64u << 10)) return;
        out << text;
        text.clear();
    };
    auto names = [&](const std::vector<std::size_t>& idx) {
        w.strings(names_of(r, idx));
        spill();
    };
    w.begin_object();
    w.key("drift").begin_array();
    for (const auto& d : r.drift) {
        w.begin_object().key("differences").begin_array();
        for (const auto& x : d.differences) {
            w.begin_object();
            w.key("extra").strings(x.extra);
            w.key("items").strings(x.items);
            w.key("layer").value(to_string(x.layer));
            w.key("missing").strings(x.missing);
            w.key("reference").strings(x.reference);
            w.end_object();
        }
        w.end_array();
        w.key("file").value(r.nodes[d.node].file);
        w.key("node").value(r.nodes[d.node].name);
        w.end_object();
        spill();
    }
    w.end_array();
    w.key("findings").begin_array();
    for (const auto& f : r.findings) {
        w.begin_object();
        w.key("id").value(f.id);
        w.key("layer").value(snapshot::to_string(f.layer));
        w.key("node_severities").begin_array();
        for (auto sev : f.node_severities) w.value(snapshot::to_string(sev));
        w.end_array();
        w.key("nodes");
        names(f.nodes);
        w.key("severity").value(snapshot::to_string(f.severity));
        w.key("title").value(f.title);
        w.end_object();
    }
    w.end_array();
    w.key("kind").value("cudoctor-fleet");
    w.key("layers").begin_array();
    for (const auto& l : r.layers) {
        w.begin_object();
        w.key("agree").value(l.agree);
        w.key("layer").value(to_string(l.layer));
        w.key("reference").strings(l.reference);
        w.key("tie").value(l.tie);
        w.key("variants").begin_array();
        for (const auto& v : l.variants) {
            w.begin_object().key("items").strings(v.items).key("nodes");
            names(v.nodes);
            w.end_object();
        }
        w.end_array();
        w.end_object();
    }
    w.end_array();
    w.key("newest");
    if (r.newest) w.value(snapshot::format_utc(*r.newest));
    else w.null();
    w.key("node_count").value(r.nodes.size());
    w.key("nodes").begin_array();
    // The layers by name, as nlohmann's map orders them.
    std::vector<Layer> by_name(kLayers.begin(), kLayers.end());
    std::sort(by_name.begin(), by_name.end(), [](Layer a, Layer b) { return to_string(a) < to_string(b); });
    for (const auto& n : r.nodes) {
        w.begin_object();
        w.key("file").value(n.file);
        w.key("findings").begin_array();
        for (const auto& f : n.findings) w.value(f.id);
        w.end_array();
        w.key("hostname").value(n.hostname);
        w.key("layers").begin_object();
        for (auto l : by_name) w.key(to_string(l)).strings(n.items(l));
        w.end_object();
        w.key("name").value(n.name);
        w.key("taken_at").value(n.taken_at);
        w.key("tool_version").value(n.tool_version);
        w.end_object();
        spill();
    }
    w.end_array();
    w.key("reference").begin_object();
    if (r.baseline) {
        w.key("file").value(r.baseline->file);
        w.key("kind").value("baseline");
        w.key("node").value(r.baseline->name);
    } else {
        w.key("kind").value("majority");
    }
    w.end_object();
    w.key("schema").value(1);
    w.key("stale").begin_array();
    for (const auto& s : r.stale) {
        w.begin_object();
        w.key("age_seconds");
        if (s.age_seconds) w.value(*s.age_seconds);
        else w.null();
        w.key("file").value(r.nodes[s.node].file);
        w.key("node").value(r.nodes[s.node].name);
        w.key("taken_at").value(r.nodes[s.node].taken_at);
        w.end_object();
        spill();
    }
    w.end_array();
    w.key("stale_after_seconds").value(r.stale_after_seconds);
    w.key("unreadable").begin_array();
    for (const auto& u : r.unreadable)
        w.begin_object().key("code").value(u.code).key("file").value(u.file).key("message").value(u.message).end_object();
    w.end_array();
    w.end_object();
    out << text;
}

}  // namespace cudoctor::fleet
