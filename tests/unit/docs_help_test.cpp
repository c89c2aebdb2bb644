// --help of every subcommand ends with examples that parse; global options work on either side of
// the subcommand; the generators are hidden and write what they print.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include <CLI/CLI.hpp>

#include "commands/docs.hpp"
#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/help_text.hpp"

// A namespace of its own: a global using-directive for cudoctor would hide the `compare(…)` of
// headers later files of the unity build include (cudoctor::compare against fmt's bigint).
namespace docs_help_test {

using namespace cudoctor;
using namespace cudoctor::commands;

using test::listed_subcommands;

TEST(DocsHelp, EverySubcommandHelpEndsWithAnExample) {
    auto top = test::run_cudoctor({"--help"});
    ASSERT_EQ(top.exit_code, 0) << top.err;
    const auto names = listed_subcommands(top.out);
    ASSERT_GE(names.size(), 6u) << top.out;
    EXPECT_EQ(top.out.find("__generate"), std::string::npos) << "hidden subcommands stay out of --help";
    EXPECT_NE(top.out.find("--color"), std::string::npos);
    EXPECT_NE(top.out.find("--quiet"), std::string::npos);
    for (const auto& name : names) {
        auto run = test::run_cudoctor({name, "--help"});
        EXPECT_EQ(run.exit_code, 0) << name << ": " << run.err;
        const auto at = run.out.find("Examples:");
        ASSERT_NE(at, std::string::npos) << "cudoctor " << name << " --help has no Examples:\n" << run.out;
        EXPECT_NE(run.out.find("cudoctor " + name, at), std::string::npos) << name << " examples never run it:\n" << run.out.substr(at);
    }
}

TEST(DocsHelp, ExamplesParseAgainstTheRealOptions) {
    auto run = test::run_cudoctor({"__generate", "examples"});
    EXPECT_EQ(run.exit_code, 0) << "examples that no longer parse:\n" << run.out << run.err;
    EXPECT_EQ(run.out, "");
}

TEST(DocsHelp, BrokenExamplesAreCaught) {
    CLI::App app{"t", "cudoctor"};
    std::string level;
    auto* sub = app.add_subcommand("verify", "verify things");
    sub->add_option("--level", level)->check(CLI::IsMember({"1", "2"}));
    sub->footer(
        "Examples:\n  cudoctor verify --level 1\n  sudo cudoctor verify --level 3  # not a level\n"
        "  cudoctor verify --levle 1 > out.txt\n  cudoctor rules\n  eval \"$(cudoctor verify)\"");
    auto* quiet = app.add_subcommand("quiet", "no examples");
    (void)quiet;
    auto* later = app.add_subcommand("later", "(not yet available)");
    later->footer("Examples:\n  cudoctor later --anything");
    const auto broken = broken_examples(app);
    ASSERT_EQ(broken.size(), 4u) << ::testing::PrintToString(broken);
    EXPECT_TRUE(broken[0].starts_with("cudoctor verify --level 3: ")) << broken[0];
    EXPECT_TRUE(broken[1].starts_with("cudoctor verify --levle 1: ")) << broken[1];
    EXPECT_TRUE(broken[2].starts_with("cudoctor rules: ")) << broken[2];
    EXPECT_EQ(broken[3], "cudoctor quiet: no example in its --help");
}

TEST(DocsHelp, ExamplesInFooter) {
    EXPECT_EQ(examples_in("Examples:\n  cudoctor a --b   # c\n  sudo cudoctor d | less\n  eval \"$(cudoctor e)\"\n  cudoctor f > x\n"),
              (std::vector<std::string>{"cudoctor a --b", "cudoctor d", "cudoctor f"}));
    EXPECT_TRUE(examples_in("").empty());
}

TEST(DocsHelp, GlobalOptionsOnEitherSideOfTheSubcommand) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--color=never", "rules"}, {"rules", "--color", "always"}, {"-q", "rules"}, {"rules", "--quiet"}}) {
        auto run = test::run_cudoctor(args);
        EXPECT_EQ(run.exit_code, 0) << ::testing::PrintToString(args) << ": " << run.describe() << run.err;
    }
    auto bad = test::run_cudoctor({"rules", "--color=sometimes"});
    EXPECT_EQ(bad.exit_code, 2) << bad.describe();
    EXPECT_NE(bad.err.find("--color"), std::string::npos) << bad.err;
}

TEST(DocsHelp, GeneratorWritesTheFileItPrints) {
    const auto dir = std::filesystem::temp_directory_path() / ("cudoctor-docs-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (const char* what : {"man", "bash", "zsh", "fish"}) {
        auto printed = test::run_cudoctor({"__generate", what});
        ASSERT_EQ(printed.exit_code, 0) << what << printed.err;
        const auto file = dir / what;
        auto written = test::run_cudoctor({"__generate", what, "-o", file.string()});
        ASSERT_EQ(written.exit_code, 0) << what << written.err;
        EXPECT_EQ(test::slurp(file), printed.out) << what;
        EXPECT_FALSE(std::filesystem::exists(file.string() + ".tmp"));
    }
    auto bad = test::run_cudoctor({"__generate", "man", "-o", (dir / "no" / "such" / "dir").string()});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("cannot write"), std::string::npos) << bad.err;
    auto unknown = test::run_cudoctor({"__generate", "pdf"});
    EXPECT_EQ(unknown.exit_code, 2);
    std::filesystem::remove_all(dir);
}

TEST(DocsHelp, DescribeCliSortsValueKinds) {
    CLI::App app{"t", "cudoctor"};
    std::string s;
    std::vector<std::string> many;
    bool flag = false;
    app.add_option("--color", s, "c")->check(CLI::IsMember({"auto", "always", "never"}));
    auto* use = app.add_subcommand("use", "switch");
    use->add_option("version", s, "v");
    use->add_option("--root", s, "r");
    use->add_option("--name", s, "n");
    use->add_option("--python", many, "p");
    use->add_flag("-v,--verbose", flag, "verbose");
    use->add_option("--secret", s, "hidden")->group("");
    auto* group = use->add_option_group("output");
    group->add_flag("--json", flag, "json");
    app.add_subcommand("__hidden", "h")->group("");
    auto* arch = app.add_subcommand("arch", "a");
    arch->add_option("inputs", many, "files")->required();

    const auto doc = describe_cli(app);
    ASSERT_EQ(doc.commands.size(), 2u);
    EXPECT_EQ(doc.global_options.size(), 2u);  // --help, --color
    const auto& u = doc.commands[0];
    EXPECT_EQ(u.name, "use");
    ASSERT_EQ(u.positionals.size(), 1u);
    EXPECT_EQ(u.positionals[0].kind, ValueKind::toolkit);
    std::map<std::string, const OptionDoc*> by_name;
    for (const auto& o : u.options) by_name[o.names.back()] = &o;
    EXPECT_FALSE(by_name.contains("--secret"));
    EXPECT_FALSE(by_name.contains("--help"));
    ASSERT_TRUE(by_name.contains("--json")) << "options of an option group are the command's";
    EXPECT_EQ(by_name["--root"]->kind, ValueKind::path);
    EXPECT_EQ(by_name["--name"]->kind, ValueKind::text);
    EXPECT_TRUE(by_name["--python"]->repeatable);
    EXPECT_FALSE(by_name["--name"]->repeatable);
    EXPECT_EQ(by_name["--verbose"]->kind, ValueKind::none);
    EXPECT_EQ(by_name["--verbose"]->names, (std::vector<std::string>{"-v", "--verbose"}));
    const auto& color = doc.global_options[1];
    EXPECT_EQ(color.kind, ValueKind::choice);
    EXPECT_EQ(color.choices, (std::vector<std::string>{"auto", "always", "never"}));
    const auto& a = doc.commands[1];
    ASSERT_EQ(a.positionals.size(), 1u);
    EXPECT_EQ(a.positionals[0].kind, ValueKind::path);
    EXPECT_TRUE(a.positionals[0].repeatable);
    EXPECT_TRUE(a.positionals[0].required);
}

}  // namespace docs_help_test
