// fleet: a rule is shown with each node's own severity (a warning on one node is not an error
// because another node has the error), and a changed default toolkit is said in plain words.
// (In this file for its owner's test prefix; it tests src/fleet.)
#include <gtest/gtest.h>

#include <sstream>

#include "fleet/analysis.hpp"
#include "fleet/render.hpp"

using namespace cudoctor;

namespace {

fleet::NodeSummary fr_node(const std::string& name, std::vector<std::string> toolkits, std::vector<fleet::NodeFinding> findings = {}) {
    fleet::NodeSummary n;
    n.file = name + ".json";
    n.hostname = name;
    n.name = name;
    n.taken_at = "2026-12-01T00:00:00Z";
    n.taken_at_epoch = 1796083200;
    n.layers[static_cast<std::size_t>(fleet::Layer::toolkits)] = std::move(toolkits);
    n.findings = std::move(findings);
    return n;
}

fleet::NodeFinding fr_finding(snapshot::Severity severity) {
    return {"ld-library-path-empty-entry", severity, snapshot::Layer::platform, "an empty LD_LIBRARY_PATH entry"};
}

fleet::FleetReport fr_analyse(std::vector<fleet::NodeSummary> nodes) {
    std::vector<std::variant<fleet::NodeSummary, fleet::Unreadable>> in;
    for (auto& n : nodes) in.emplace_back(std::move(n));
    return fleet::analyse(std::move(in), {});
}

std::string fr_text(const fleet::FleetReport& r) {
    std::ostringstream out;
    fleet::render_text(r, {}, out);
    return out.str();
}

std::string fr_markdown(const fleet::FleetReport& r) {
    std::ostringstream out;
    fleet::render_markdown(r, {}, out);
    return out.str();
}

const std::vector<std::string> kFrUsual = {"12.1.105", "12.4.131 (default)"};

}  // namespace

TEST(ArchFleetRender, EachNodeKeepsItsOwnSeverity) {
    using S = snapshot::Severity;
    auto r = fr_analyse({fr_node("gpu01", kFrUsual, {fr_finding(S::error)}), fr_node("gpu02", kFrUsual, {fr_finding(S::warning)}),
                         fr_node("gpu03", kFrUsual, {fr_finding(S::warning), fr_finding(S::info)})});
    ASSERT_EQ(r.findings.size(), 1u);
    const auto& g = r.findings[0];
    EXPECT_EQ(g.severity, S::error);  // the group sorts and fails by its worst
    EXPECT_EQ(g.node_severities, (std::vector<S>{S::error, S::warning, S::warning}));
    EXPECT_TRUE(g.mixed_severity());
    EXPECT_NE(fr_text(r).find("3 nodes: error on gpu01; warning on gpu[02-03]"), std::string::npos) << fr_text(r);
    EXPECT_NE(fr_markdown(r).find("3 nodes: error on gpu01; warning on gpu[02-03]"), std::string::npos) << fr_markdown(r);
    const auto j = fleet::to_json(r);
    EXPECT_EQ(j["findings"][0]["node_severities"], (nlohmann::json{"error", "warning", "warning"}));
}

TEST(ArchFleetRender, OneSeverityReadsAsBefore) {
    using S = snapshot::Severity;
    auto r = fr_analyse({fr_node("gpu01", kFrUsual, {fr_finding(S::warning)}), fr_node("gpu02", kFrUsual, {fr_finding(S::warning)})});
    EXPECT_FALSE(r.findings[0].mixed_severity());
    EXPECT_NE(fr_text(r).find("2 nodes: gpu[01-02]"), std::string::npos) << fr_text(r);
}

TEST(ArchFleetRender, AChangedDefaultToolkitInPlainWords) {
    auto r = fr_analyse({fr_node("gpu01", kFrUsual), fr_node("gpu02", kFrUsual), fr_node("gpu03", {"12.1.105 (default)", "12.4.131"})});
    const auto t = fr_text(r);
    EXPECT_NE(t.find("toolkits: default toolkit 12.1.105 on these nodes, 12.4.131 on most\n"), std::string::npos) << t;
    EXPECT_EQ(t.find("missing 12.1.105"), std::string::npos) << t;
    EXPECT_EQ(t.find("extra 12.1.105 (default)"), std::string::npos) << t;
}

TEST(ArchFleetRender, MissingAndExtraToolkitsBesideTheDefault) {
    auto r = fr_analyse({fr_node("gpu01", kFrUsual), fr_node("gpu02", kFrUsual), fr_node("gpu03", {"11.8.89", "12.4.131 (default)"})});
    EXPECT_NE(fr_text(r).find("toolkits: missing 12.1.105; extra 11.8.89\n"), std::string::npos) << fr_text(r);
    auto none = fr_analyse({fr_node("gpu01", kFrUsual), fr_node("gpu02", kFrUsual), fr_node("gpu03", {"12.1.105", "12.4.131"})});
    EXPECT_NE(fr_text(none).find("toolkits: no default toolkit on these nodes, 12.4.131 on most\n"), std::string::npos) << fr_text(none);
}
