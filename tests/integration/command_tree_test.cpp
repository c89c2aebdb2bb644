// main() builds only the command a run names (commands::only_command) and falls back to the
// whole tree when that parse is not the whole tree's: a command's name given as an option's
// value, an argument the short tree refuses, help.
#include <gtest/gtest.h>

#include <string>

#include "commands/command.hpp"
#include "run_cudoctor.hpp"

namespace command_tree_test {

using cudoctor::test::run_cudoctor;

TEST(CommandTree, ACommandNameGivenAsAnOptionValueRunsWhatTheWholeTreeRuns) {
    // "fleet" is --kb's folder here: the short tree of fleet parses this, but fleet is not the
    // command; the whole tree prints the version (and says the folder is not there).
    const auto r = run_cudoctor({"--kb", "fleet", "--version"});
    EXPECT_EQ(r.exit_code, 0) << r.describe() << r.err;
    EXPECT_TRUE(r.out.starts_with("cudoctor ")) << r.out;
    EXPECT_NE(r.out.find("knowledge base:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("knowledge-base directory fleet (--kb) does not exist"), std::string::npos) << r.out;
}

TEST(CommandTree, AnArgumentTheShortTreeRefusesGetsTheWholeTreesError) {
    const auto r = run_cudoctor({"check", "fleet"});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_NE(r.err.find("The following argument was not expected: fleet"), std::string::npos) << r.err;
    // And with --json, the error object names the command as the whole tree does.
    const auto j = run_cudoctor({"check", "fleet", "--json"});
    EXPECT_EQ(j.exit_code, 2) << j.describe();
    EXPECT_NE(j.out.find("\"error\""), std::string::npos) << j.out;
}

TEST(CommandTree, HelpListsEveryCommand) {
    const auto r = run_cudoctor({"--help"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    for (const auto& e : cudoctor::commands::command_table())
        EXPECT_NE(r.out.find("\n  " + std::string(e.name) + " "), std::string::npos) << e.name;
}

}  // namespace command_tree_test
