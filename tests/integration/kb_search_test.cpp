// The knowledge base's search order through the real executable: main() reads $CUDOCTOR_KB from
// its environment (the unit tests set the search by hand), `--version` names where each table
// came from, and a variable naming a folder that does not exist stops the command with exit 2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "integration/run_cudoctor.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {

std::vector<std::string> with_kb_variable(const std::string& value) {
    auto env = outside_environment();
    env.push_back("CUDOCTOR_KB=" + value);
    return env;
}

TEST(KbSearchCli, VersionNamesTheVariablesFolderAndKbComesFirst) {
    TempDir env, cli;
    env.write("xid_codes.tsv", "# source: the variable's Xid table\ncode\tmnemonic\tmeaning\tcause\taction\tadvice\n");
    env.write("gpus.tsv", "# source: not read: --kb has one\n");
    cli.write("gpus.tsv", "# source: the option's GPU table\n");
    const auto run = run_program(CUDOCTOR_BINARY, {"--version", "--kb", cli.str()}, with_kb_variable(env.str()), std::chrono::seconds(30));
    ASSERT_EQ(run.exit_code, 0) << run.describe() << run.err;
    EXPECT_NE(run.out.find("the variable's Xid table (" + env.str() + "/xid_codes.tsv, from $CUDOCTOR_KB)"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("the option's GPU table (" + cli.str() + "/gpus.tsv, from --kb)"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("not read"), std::string::npos) << run.out;
}

TEST(KbSearchCli, AVariableNamingNoFolderIsAClearError) {
    TempDir dir;
    const auto absent = dir.str() + "/absent";
    const auto run = run_program(CUDOCTOR_BINARY, {"check", "--root", dir.str()}, with_kb_variable(absent), std::chrono::seconds(30));
    EXPECT_EQ(run.exit_code, 2) << run.describe() << run.out << run.err;
    EXPECT_NE(run.err.find("knowledge-base directory " + absent + " (from $CUDOCTOR_KB) does not exist"), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
}

}  // namespace
}  // namespace cudoctor::test
