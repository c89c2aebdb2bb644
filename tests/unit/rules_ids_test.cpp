// The one id registry (src/rules/ids.hpp) against everything that names a failure mode: check's
// rules table, explain's causes table, data/error_catalog.tsv's cause column, and verify's blame
// lists. Literal ids in the code are checked when compiled (rules::Id, rules::RuleId); these tests
// walk the tables and the lists built at run time.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "explain/causes.hpp"
#include "explain/explain.hpp"
#include "kb/embedded.hpp"
#include "kb/table.hpp"
#include "rules/ids.hpp"
#include "rules/rules.hpp"
#include "verify/causes.hpp"

namespace fs = std::filesystem;
using namespace cudoctor;
using rules::NamedBy;

namespace {

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool named_by_rule(const rules::FailureMode& m) { return m.named_by != NamedBy::cause; }
bool named_by_cause(const rules::FailureMode& m) { return m.named_by != NamedBy::rule; }

}  // namespace

TEST(IdRegistry, EveryRuleIsRegisteredWithItsLayerAndEveryRegisteredRuleExists) {
    std::set<std::string> rule_ids;
    for (const auto& r : rules::all_rules()) {
        SCOPED_TRACE(std::string(r.id));
        const auto* m = rules::find_failure_mode(r.id);
        ASSERT_NE(m, nullptr);
        EXPECT_EQ(m->id, r.id) << "a rule uses an old explain id";
        EXPECT_TRUE(named_by_rule(*m));
        EXPECT_EQ(m->layer, r.layer);
        EXPECT_TRUE(rule_ids.insert(std::string(r.id)).second) << "two rules share an id";
    }
    for (const auto& m : rules::all_failure_modes())
        EXPECT_TRUE(!named_by_rule(m) || rule_ids.contains(std::string(m.id))) << m.id << " is registered as a rule but no rule has it";
}

TEST(IdRegistry, EveryExplainCauseIsRegisteredWithItsLayerAndEveryRegisteredCauseExists) {
    std::set<std::string> cause_ids;
    for (const auto& c : explain::all_causes()) {
        SCOPED_TRACE(std::string(c.id.view()));
        const auto* m = rules::find_failure_mode(c.id);
        ASSERT_NE(m, nullptr);
        EXPECT_TRUE(named_by_cause(*m));
        EXPECT_EQ(m->layer, c.layer);
        for (auto root : c.follows_from) EXPECT_NE(explain::find_cause(root), nullptr) << root.view();
        cause_ids.insert(std::string(c.id.view()));
    }
    for (const auto& m : rules::all_failure_modes())
        EXPECT_TRUE(!named_by_cause(m) || cause_ids.contains(std::string(m.id))) << m.id << " is registered as a cause but explain lacks it";
}

TEST(IdRegistry, ACauseThatIsAlsoARuleHasTheRulesId) {
    // A cause whose id no rule has must not name the same thing as a rule: those were merged.
    for (const auto& m : rules::all_failure_modes()) {
        if (m.named_by != NamedBy::both) continue;
        EXPECT_NE(rules::find_rule(m.id), nullptr) << m.id;
        EXPECT_NE(explain::find_cause(m.id), nullptr) << m.id;
    }
}

TEST(IdRegistry, RelationsNameRulesOnlyAndOnlyForCauses) {
    for (const auto& m : rules::all_failure_modes()) {
        SCOPED_TRACE(std::string(m.id));
        for (auto r : m.confirmed_by) EXPECT_TRUE(r.empty() || rules::find_rule(r)) << r;
        for (auto r : m.contradicted_absent) EXPECT_TRUE(r.empty() || rules::find_rule(r)) << r;
        if (m.named_by == NamedBy::both) {
            EXPECT_EQ(m.confirmed_by[0], m.id) << "a merged cause is confirmed by its own rule";
        }
    }
}

TEST(IdRegistry, TheCatalogNamesOnlyRegisteredCausesByTheirCurrentIds) {
    // The raw cause column, before parse_catalog maps old ids: the shipped table uses new ids only.
    for (const auto& t : kb::embedded_tables()) {
        if (t.name != "error_catalog.tsv") continue;
        auto table = kb::Table::parse(t.name, t.text);
        ASSERT_TRUE(table) << table.error().message;
        for (const auto& raw : table->rows()) {
            kb::RowView row(*table, raw);
            const auto cause = row.text("cause");
            const auto* m = rules::find_failure_mode(cause);
            ASSERT_NE(m, nullptr) << "line " << row.line() << ": " << cause;
            EXPECT_EQ(m->id, cause) << "line " << row.line() << " uses the old id " << cause;
            EXPECT_TRUE(named_by_cause(*m)) << "line " << row.line() << ": " << cause << " is no explain cause";
        }
        return;
    }
    FAIL() << "error_catalog.tsv is not embedded";
}

TEST(IdRegistry, VerifyBlamesOnlyRegisteredRules) {
    // Literal lists passed to blame() do not compile with an unknown id (RuleIds); this walks
    // every list in src/verify/, the ones assigned to a variable first, as written.
    const std::regex list(R"((?:blame\([^;{]*|rules = )\{([^{}]*)\})");
    const std::regex literal(R"re("([^"]*)")re");
    int ids = 0;
    for (const auto& f : fs::directory_iterator(fs::path(CUDOCTOR_SOURCE_DIR) / "src/verify")) {
        if (f.path().extension() != ".cpp") continue;
        const auto text = read(f.path());
        for (std::sregex_iterator it(text.begin(), text.end(), list), end; it != end; ++it) {
            const std::string body = (*it)[1];
            for (std::sregex_iterator l(body.begin(), body.end(), literal); l != end; ++l) {
                EXPECT_TRUE(rules::is_rule_id((*l)[1].str())) << f.path().filename() << ": " << (*l)[1];
                ++ids;
            }
        }
    }
    EXPECT_GT(ids, 20);
    // A list built at run time keeps registered rule ids only.
    verify::RuleIds built(std::vector<std::string_view>{"driver-library-mismatch", "driver-lib-mismatch", "wsl", "no-such-rule"});
    EXPECT_EQ(built.ids(), (std::vector<std::string_view>{"driver-library-mismatch"}));
}

TEST(IdRegistry, OldExplainIdsAreAliasesOfTheirNewIds) {
    const std::vector<std::pair<std::string_view, std::string_view>> renamed = {
        {"driver-lib-mismatch", "driver-library-mismatch"},
        {"unsupported-gcc", "gcc-too-new-for-toolkit"},
        {"cuda-version-mismatch-build", "extension-build-cuda-mismatch"},
    };
    for (const auto& [old_id, id] : renamed) {
        const auto* m = rules::find_failure_mode(old_id);
        ASSERT_NE(m, nullptr) << old_id;
        EXPECT_EQ(m->id, id);
        EXPECT_EQ(m->old_id, old_id);
        ASSERT_NE(explain::find_cause(old_id), nullptr) << old_id;
        EXPECT_EQ(explain::find_cause(old_id)->id.view(), id);
        EXPECT_FALSE(rules::is_rule_id(old_id)) << "an old id is no rule id";
    }
    EXPECT_EQ(rules::find_failure_mode("no-such-id"), nullptr);
    EXPECT_EQ(rules::find_failure_mode(""), nullptr);
    EXPECT_EQ(explain::find_cause("nouveau-loaded"), nullptr) << "a rule alone is no explain cause";
}

TEST(IdRegistry, ACatalogRowWithAnOldIdNamesTheNewCause) {
    const std::string head = "# source: test\npattern\tcause\tconfidence\tliteral\tregex\tcaptures\n";
    auto rows = explain::parse_catalog("c.tsv", head + "p\tdriver-lib-mismatch\thigh\tmagic words\tmagic words\t\n");
    ASSERT_TRUE(rows) << rows.error().message;
    EXPECT_EQ(rows->front().cause, "driver-library-mismatch");
    auto reader = explain::Reader::create(std::move(*rows));
    ASSERT_TRUE(reader) << reader.error().message;
    reader->feed("the magic words\n");
    reader->finish();
    const auto causes = reader->causes();
    ASSERT_EQ(causes.size(), 1u);
    EXPECT_EQ(causes[0].id, "driver-library-mismatch");
    EXPECT_EQ(causes[0].layer, snapshot::Layer::driver);
}
