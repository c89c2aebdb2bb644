// The man page: escaping that groff accepts, every CUDOCTOR_* variable the code reads documented,
// and every subcommand of the real binary given its section.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>

#include "commands/docs.hpp"
#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"

// A namespace of its own: a global using-directive for cudoctor would hide the `compare(…)` of
// headers later files of the unity build include (cudoctor::compare against fmt's bigint).
namespace docs_man_test {

using namespace cudoctor;
using namespace cudoctor::commands;

namespace {

/// The subcommand names the real binary's --help lists.
std::vector<std::string> listed_subcommands() {
    auto run = test::run_cudoctor({"--help"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    std::vector<std::string> names;
    const auto at = run.out.find("Subcommands:");
    EXPECT_NE(at, std::string::npos) << run.out;
    if (at == std::string::npos) return names;
    std::istringstream in(run.out.substr(at));
    std::string line;
    std::getline(in, line);
    const std::regex row(R"(^  ([a-z][a-z0-9-]*)\s)");
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, row)) names.push_back(m[1]);
    }
    return names;
}

}  // namespace

TEST(DocsMan, EveryEnvironmentVariableTheCodeReadsIsDocumented) {
    const auto documented = documented_environment();
    const std::set<std::string> known(documented.begin(), documented.end());
    const std::regex literal("\"(CUDOCTOR_[A-Z0-9_]*[A-Z0-9])[\"=]");
    std::set<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(CUDOCTOR_SOURCE_DIR) + "/src")) {
        if (!entry.is_regular_file()) continue;
        const auto text = test::slurp(entry.path());
        for (std::sregex_iterator it(text.begin(), text.end(), literal), end; it != end; ++it) found.insert((*it)[1]);
    }
    EXPECT_TRUE(found.contains("CUDOCTOR_OVERRIDE_DRIVER_VERSION")) << "the scan found nothing: did src/ move?";
    for (const auto& name : found)
        EXPECT_TRUE(known.contains(name)) << name << " is read in src/ but not in the man page's ENVIRONMENT (docs_man.cpp)";
}

TEST(DocsMan, EscapesWhatRoffWouldMisread) {
    CLI::App app{"cudoctor — a tool", "cudoctor"};
    auto* sub = app.add_subcommand("do-it", "does it — well");
    std::string s;
    sub->add_option("--path", s, ".starts with a dot, has a back\\slash and ü");
    sub->footer("Examples:\n  cudoctor do-it --path /x   # -- dashes");
    const auto page = man_page(describe_cli(app), "1.2.3", "2024-01-02");
    for (unsigned char c : page) ASSERT_LT(c, 0x80) << "raw non-ASCII byte in the page";
    EXPECT_NE(page.find(".TH CUDOCTOR 1 \"2024-01-02\" \"cudoctor 1.2.3\""), std::string::npos) << page;
    EXPECT_NE(page.find(".SH NAME\ncudoctor \\- a tool\n"), std::string::npos) << page;
    EXPECT_NE(page.find("does it \\[u2014] well"), std::string::npos) << page;
    EXPECT_NE(page.find("\\&.starts with a dot, has a back\\eslash and \\[u00FC]"), std::string::npos) << page;
    EXPECT_NE(page.find("\\fB\\-\\-path\\fR \\fITEXT\\fR"), std::string::npos) << page;
    EXPECT_NE(page.find("cudoctor do\\-it \\-\\-path /x   # \\-\\- dashes"), std::string::npos) << page;
    EXPECT_EQ(page.find("Examples:"), std::string::npos) << "the footer's heading is the section's";
    // Every line that starts with a dot is a request we wrote.
    std::istringstream in(page);
    const std::set<std::string> requests = {".TH", ".SH", ".SS", ".TP", ".PP", ".B",  ".I",
                                            ".BR", ".RS", ".RE", ".nf", ".fi", ".br", ".\\\""};
    for (std::string line; std::getline(in, line);)
        if (line.starts_with('.')) {
            EXPECT_TRUE(requests.contains(line.substr(0, line.find(' ')))) << line;
        }
}

TEST(DocsMan, BrokenUtf8BecomesAReplacementCharacter) {
    CLI::App app{"x", "cudoctor"};
    auto* sub = app.add_subcommand("a", std::string("bad \xC3 and \xE2\x80 cut"));
    (void)sub;
    const auto page = man_page(describe_cli(app), "1", "2024-01-01");
    EXPECT_NE(page.find("bad \\[uFFFD] and \\[uFFFD]\\[uFFFD] cut"), std::string::npos) << page;
}

TEST(DocsMan, RealPageHasEverySubcommandAndNoHiddenOne) {
    auto run = test::run_cudoctor({"__generate", "man"});
    ASSERT_EQ(run.exit_code, 0) << run.describe() << run.err;
    const auto names = listed_subcommands();
    ASSERT_GE(names.size(), 6u);
    for (const auto& name : names) {
        std::string roff_name = std::regex_replace(name, std::regex("-"), "\\-");
        EXPECT_NE(run.out.find(".SS \"" + roff_name + "\""), std::string::npos) << name;
    }
    EXPECT_EQ(run.out.find(".SS \"__"), std::string::npos) << "hidden subcommands get no section";
    EXPECT_EQ(run.out.find("__complete"), std::string::npos);
    for (const char* section : {".SH EXIT STATUS", ".SH ENVIRONMENT", ".SH FILES", ".SH EXAMPLES", ".SH GLOBAL OPTIONS"})
        EXPECT_NE(run.out.find(section), std::string::npos) << section;
}

}  // namespace docs_man_test
