// Every rule in the table has unit tests on Snapshot literals: a case where it fires and one where
// it stays silent. Read from the test sources (tests/unit/rules_*_test.cpp), where a case calls
// fired("rule-id", …) or silent("rule-id", …) (support/rule_cases.hpp); a DISABLED_ test counts
// for nothing. A new rule without both cases fails here, naming it.
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "rules/rules.hpp"
#include "support/files.hpp"

namespace cudoctor::test::rule_cases {
namespace {

struct CoveredIds {
    std::set<std::string> fired;
    std::set<std::string> silent;
    std::size_t files = 0;
};

/// The ids the enabled tests of the rules_*_test.cpp files drive, by how.
CoveredIds ids_driven_by_rule_tests() {
    CoveredIds ids;
    const std::regex call(R"(\b(fired|silent)\(\s*"([^"]+)\")");
    const auto dir = std::filesystem::path(CUDOCTOR_SOURCE_DIR) / "tests/unit";
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const auto name = entry.path().filename().string();
        if (!name.starts_with("rules_") || !name.ends_with("_test.cpp") || name == "rules_coverage_test.cpp") continue;
        ++ids.files;
        const std::string text = slurp(entry.path());
        // One chunk per TEST(…) (the first chunk is the file's helpers, which drive no rule).
        std::size_t at = text.find("\nTEST(");
        while (at != std::string::npos) {
            const std::size_t next = text.find("\nTEST(", at + 1);
            const std::string chunk = text.substr(at, next == std::string::npos ? std::string::npos : next - at);
            at = next;
            if (chunk.substr(0, chunk.find(')')).find("DISABLED_") != std::string::npos) continue;
            for (std::sregex_iterator m(chunk.begin(), chunk.end(), call), end; m != end; ++m)
                ((*m)[1] == "fired" ? ids.fired : ids.silent).insert((*m)[2].str());
        }
    }
    return ids;
}

}  // namespace

TEST(RulesCoverage, EveryRuleFiresAndStaysSilentInAUnitTest) {
    const auto ids = ids_driven_by_rule_tests();
    ASSERT_GE(ids.files, 5u) << "tests/unit/rules_{driver,toolkit,cudnn,framework,environment}_test.cpp";
    for (const auto& rule : rules::all_rules()) {
        const std::string id(rule.id);
        EXPECT_TRUE(ids.fired.contains(id)) << id << " has no unit test where it fires";
        EXPECT_TRUE(ids.silent.contains(id)) << id << " has no unit test where it stays silent";
    }
}

TEST(RulesCoverage, UnitTestsDriveOnlyRulesInTheTable) {
    const auto ids = ids_driven_by_rule_tests();
    for (const auto* set : {&ids.fired, &ids.silent})
        for (const auto& id : *set) EXPECT_NE(rules::find_rule(id), nullptr) << "a unit test drives " << id << ", which is no rule";
}

}  // namespace cudoctor::test::rule_cases
