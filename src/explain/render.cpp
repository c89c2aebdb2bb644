#include "explain/render.hpp"

#include <sstream>

#include <nlohmann/json.hpp>

#include "report/style.hpp"
#include "rules/ids.hpp"

namespace cudoctor::explain {

namespace {

const char* mark(const std::string& verdict) { return verdict == "confirms" ? "✓" : verdict == "contradicts" ? "✗" : "·"; }

void indent_lines(std::ostream& out, const std::string& text, const char* prefix) {
    std::size_t start = 0;
    while (start <= text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        out << prefix << report::outside_text(std::string_view(text).substr(start, end - start), report::Medium::terminal) << "\n";
        start = end + 1;
    }
}

void write_text(const std::vector<Cause>& causes, const RenderContext& ctx, std::ostream& out) {
    if (causes.empty()) {
        out << "No known CUDA error found in " << ctx.lines << (ctx.lines == 1 ? " line" : " lines")
            << ": nothing in it matches cudoctor's error catalog.\n";
        return;
    }
    std::size_t roots = 0;
    for (const auto& c : causes) roots += c.consequence_of.empty();
    out << causes.size() << (causes.size() == 1 ? " cause" : " causes") << " found in " << ctx.lines << (ctx.lines == 1 ? " line" : " lines");
    if (causes.size() > roots) out << " (" << roots << (roots == 1 ? " root" : " roots") << ", the rest follow from it)";
    out << (ctx.machine.empty() ? ", not checked against a machine" : ", checked against " + ctx.machine) << "\n";
    for (const auto& c : causes) {
        out << "\n" << (c.consequence_of.empty() ? "● " : "  ↳ ") << c.id << ": " << c.title << "  [" << c.confidence << "]";
        if (!c.consequence_of.empty()) out << "  (follows from " << c.consequence_of << ")";
        out << "\n";
        for (const auto& l : c.matched_lines) indent_lines(out, l.text, ("    line " + std::to_string(l.line) + ": ").c_str());
        if (c.match_count > c.matched_lines.size())
            out << "    … " << (c.match_count_exact ? "" : "at least ") << c.match_count << " matching lines in all\n";
        out << "    what it means: " << c.explanation << "\n";
        if (!c.evidence.empty() || !c.confirming_rules.empty() || !c.contradicting_rules.empty()) {
            out << "    on " << (ctx.machine.empty() ? "the machine" : ctx.machine) << ":\n";
            for (const auto& f : c.evidence) out << "      " << mark(f.verdict) << " " << f.text << "\n";
            for (const auto& r : c.confirming_rules) out << "      " << mark("confirms") << " check rule " << r << " fired\n";
            for (const auto& r : c.contradicting_rules) out << "      " << mark("contradicts") << " check rule " << r << " did not fire\n";
        }
        if (!c.fix.empty()) {
            out << "    fix:\n";
            for (const auto& f : c.fix) out << "      " << f << "\n";
        }
    }
}

}  // namespace

std::string verdict_line(const std::vector<Cause>& causes, const RenderContext& ctx) {
    if (causes.empty()) return "No known CUDA error found in " + std::to_string(ctx.lines) + (ctx.lines == 1 ? " line" : " lines");
    const Cause& top = causes.front();
    std::string s = top.id + ": " + top.title + "  [" + top.confidence + "]";
    if (causes.size() > 1) s += " (and " + std::to_string(causes.size() - 1) + (causes.size() == 2 ? " more cause)" : " more causes)");
    return s;
}

void render_text(const std::vector<Cause>& causes, const RenderContext& ctx, std::ostream& out) {
    // The log's lines, the values read from them (library names, versions) in the fixes and the
    // machine's facts come from outside, and the view's own words hold no control byte: the
    // finished view goes through the one escape, line by line.
    std::ostringstream text;
    write_text(causes, ctx, text);
    out << report::outside_lines(text.str());
}

void render_json(const std::vector<Cause>& causes, const RenderContext& ctx, std::ostream& out) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& c : causes) {
        nlohmann::json lines = nlohmann::json::array();
        for (const auto& l : c.matched_lines) lines.push_back({{"line", l.line}, {"text", l.text}, {"pattern", l.pattern}});
        nlohmann::json evidence = nlohmann::json::array();
        for (const auto& f : c.evidence) evidence.push_back({{"verdict", f.verdict}, {"fact", f.text}});
        const auto* mode = rules::find_failure_mode(c.id);
        nlohmann::json j;
        j["id"] = c.id;
        j["alias"] = mode && !mode->old_id.empty() ? nlohmann::json(mode->old_id) : nlohmann::json(nullptr);
        j["rules"] = {{"confirm", c.confirming_rules}, {"contradict", c.contradicting_rules}};
        j["confidence"] = c.confidence;
        j["matched_lines"] = std::move(lines);
        j["title"] = c.title;
        j["explanation"] = c.explanation;
        j["fix"] = c.fix;
        j["evidence"] = std::move(evidence);
        j["consequence_of"] = c.consequence_of.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.consequence_of);
        j["layer"] = snapshot::to_string(c.layer);
        j["values"] = c.values;
        j["match_count"] = c.match_count;
        list.push_back(std::move(j));
    }
    nlohmann::json doc;
    doc["causes"] = std::move(list);
    doc["lines"] = ctx.lines;
    doc["bytes"] = ctx.bytes;
    doc["machine"] = ctx.machine.empty() ? nlohmann::json(nullptr) : nlohmann::json(ctx.machine);
    out << report::json_text(doc) << "\n";
}

}  // namespace cudoctor::explain
