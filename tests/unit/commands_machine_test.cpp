// The shared machine options and the one way to open a machine: each shared option registered
// once with one help text across the whole command tree, and open_machine on a fixture root.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands/command.hpp"
#include "commands/docs.hpp"
#include "commands/machine.hpp"
#include "gpucode/gpus.hpp"

// In a namespace of its own: a global using-directive for cudoctor would make cudoctor::compare
// visible to fmt's own `compare` in a unity unit that includes <fmt/format.h> after this file.
namespace commands_machine_test {

using namespace cudoctor;
using namespace cudoctor::commands;

namespace {

const std::string kRoots = CUDOCTOR_ROOTS_DIR;

/// Every option of `app` and its subcommands (option groups included), by long name.
void collect(const CLI::App& app, std::map<std::string, std::vector<const CLI::Option*>>& by_name) {
    for (const CLI::Option* o : app.get_options())
        for (const auto& l : o->get_lnames()) by_name["--" + l].push_back(o);
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) collect(*sub, by_name);
}

int count_named(const CLI::App& app, const std::string& name) {
    int n = 0;
    for (const CLI::Option* o : app.get_options())
        if (o->check_lname(name.substr(2))) ++n;
    return n;
}

}  // namespace

TEST(CommandsMachine, AddMachineOptionsRegistersWhatIsOfferedOnce) {
    CLI::App app{"test"};
    MachineOptions all, plain, kb_only;
    auto* a = app.add_subcommand("a");
    auto* b = app.add_subcommand("b");
    auto* c = app.add_subcommand("c");
    const auto refs = add_machine_options(a, all, {.python = true, .no_exec = true});
    add_machine_options(b, plain);
    const auto kb_refs = add_machine_options(c, kb_only, {.root = false});

    for (const char* name : {"--root", "--kb", "--python", "--no-exec"}) EXPECT_EQ(count_named(*a, name), 1) << name;
    EXPECT_NE(refs.root, nullptr);
    EXPECT_NE(refs.no_exec, nullptr);
    EXPECT_EQ(count_named(*b, "--root"), 1);
    EXPECT_EQ(count_named(*b, "--kb"), 1);
    EXPECT_EQ(count_named(*b, "--python"), 0) << "offered only on request";
    EXPECT_EQ(count_named(*b, "--no-exec"), 0) << "offered only on request";
    EXPECT_EQ(count_named(*c, "--root"), 0);
    EXPECT_EQ(kb_refs.root, nullptr);
    EXPECT_EQ(count_named(*c, "--kb"), 1);

    // One help text, whichever command offers the option.
    EXPECT_EQ(a->get_option("--root")->get_description(), b->get_option("--root")->get_description());
    EXPECT_EQ(a->get_option("--kb")->get_description(), c->get_option("--kb")->get_description());
    EXPECT_EQ(a->get_option("--root")->get_description(), "work on a machine image (a folder laid out like /) instead of this machine");
    EXPECT_EQ(a->get_option("--kb")->get_description(), "read knowledge-base tables from DIR (newer than the built-in ones)");
    EXPECT_EQ(a->get_option("--python")->get_description(), "also inspect this Python interpreter's packages (repeatable)");
    EXPECT_EQ(a->get_option("--no-exec")->get_description(), "never start a child process while probing (not even nvcc --version)");

    app.parse("a --root /img --kb /kb --python /usr/bin/python3 --python /usr/bin/python3.11 --no-exec", false);
    EXPECT_EQ(all.root, "/img");
    EXPECT_EQ(all.kb_dir, "/kb");
    EXPECT_EQ(all.pythons, (std::vector<std::string>{"/usr/bin/python3", "/usr/bin/python3.11"}));
    EXPECT_TRUE(all.no_exec);
    EXPECT_FALSE(plain.root.has_value());
}

TEST(CommandsMachine, EachCommandOfTheTableIsTheSubcommandOfItsName) {
    // main() builds only the command a run names, found by this name: a name that is not the
    // subcommand's would send every run of it through the whole tree.
    std::set<std::string> names;
    for (const auto& e : command_table()) {
        CLI::App app{"cudoctor", "cudoctor"};
        const Command c = e.add(app);
        ASSERT_NE(c.app, nullptr) << e.name;
        EXPECT_EQ(c.app->get_name(), e.name);
        EXPECT_EQ(app.get_subcommands([](CLI::App*) { return true; }).size(), 1u) << e.name << " adds one command";
        EXPECT_TRUE(names.insert(std::string(e.name)).second) << e.name << " twice";
    }
    EXPECT_EQ(command_table().front().name, "check") << "the command run when none is named";
    // The docs commands are the rest of the tree, and none of them is in the table.
    CLI::App app{"cudoctor", "cudoctor"};
    for (const auto& c : add_docs_commands(app)) {
        EXPECT_TRUE(c.app->get_name().starts_with("__")) << c.app->get_name();
        EXPECT_FALSE(names.count(c.app->get_name())) << c.app->get_name();
    }
}

TEST(CommandsMachine, OnlyTheNamedCommandIsBuiltUnlessHelpOrDocsAreAsked) {
    auto only = [](std::vector<const char*> args) {
        auto e = only_command(args);
        return e ? std::string(e->name) : std::string("(whole tree)");
    };
    EXPECT_EQ(only({}), "check");
    EXPECT_EQ(only({"--json"}), "check");
    EXPECT_EQ(only({"fleet", "snapshots/"}), "fleet");
    EXPECT_EQ(only({"--color", "never", "plan", "--json"}), "plan");
    // The first name wins; a later one is the command's argument ("explain check").
    EXPECT_EQ(only({"explain", "check"}), "explain");
    // A name that is an option's value is still taken: main() checks that the parse chose it.
    EXPECT_EQ(only({"--kb", "fleet", "--version"}), "fleet");
    EXPECT_EQ(only({"check", "--help"}), "(whole tree)");
    EXPECT_EQ(only({"-h"}), "(whole tree)");
    EXPECT_EQ(only({"fleet", "--help-all"}), "(whole tree)");
    EXPECT_EQ(only({"__complete", "check"}), "(whole tree)");
    EXPECT_EQ(only({"__generate", "man"}), "(whole tree)");
}

TEST(CommandsMachine, TheWholeTreeHasOneHelpTextPerSharedOption) {
    CLI::App app{"cudoctor", "cudoctor"};
    std::vector<Command> all;
    for (const auto& e : command_table()) all.push_back(e.add(app));
    for (auto& c : add_docs_commands(app)) all.push_back(std::move(c));
    std::map<std::string, std::vector<const CLI::Option*>> by_name;
    collect(app, by_name);
    for (const char* name : {"--root", "--kb", "--no-exec"}) {
        ASSERT_FALSE(by_name[name].empty()) << name;
        std::set<std::string> texts;
        for (const CLI::Option* o : by_name[name]) texts.insert(o->get_description());
        EXPECT_EQ(texts.size(), 1u) << name << " has " << texts.size() << " help texts";
    }
    EXPECT_GE(by_name["--root"].size(), 12u) << "every command that reads a machine offers --root";
    EXPECT_GE(by_name["--kb"].size(), 14u) << "every command that reads the KB offers --kb";
}

TEST(CommandsMachine, OpenMachineOnAFixtureRoot) {
    MachineOptions options;
    options.root = kRoots + "/ubuntu2204-rtx4060ti";

    auto bare = open_machine(options);
    ASSERT_TRUE(bare) << bare.error().message;
    EXPECT_TRUE(bare->host.is_rooted());
    EXPECT_EQ(bare->host.root(), *options.root);
    EXPECT_TRUE(bare->snap.gpus.empty()) << "nothing probed unless asked";
    EXPECT_TRUE(bare->snap.toolkits.empty());
    EXPECT_TRUE(bare->inventory.toolkits.empty());

    auto gpus = open_machine(options, {.probe = Probe::gpus_and_driver});
    ASSERT_TRUE(gpus) << gpus.error().message;
    ASSERT_EQ(gpus->snap.gpus.size(), 1u);
    EXPECT_EQ(gpus->snap.driver.max_cuda, "12.4");
    EXPECT_TRUE(gpus->snap.toolkits.empty()) << "the GPU and driver probes only";
    const auto targets = gpucode::machine_gpus(gpus->snap.gpus);
    ASSERT_EQ(targets.size(), 1u);
    EXPECT_NE(targets[0].name.find("4060 Ti"), std::string::npos) << targets[0].name;
    EXPECT_EQ(targets[0].source, "0000:01:00.0");

    auto toolkits = open_machine(options, {.probe = Probe::toolkits});
    ASSERT_TRUE(toolkits) << toolkits.error().message;
    EXPECT_FALSE(toolkits->snap.toolkits.empty());
    EXPECT_TRUE(toolkits->snap.gpus.empty()) << "the environment and toolkit probes only";

    auto everything = open_machine(options, {.probe = Probe::all, .inventory = toolkits::InventoryOptions{.sizes = false}});
    ASSERT_TRUE(everything) << everything.error().message;
    EXPECT_EQ(everything->snap.gpus.size(), 1u);
    ASSERT_FALSE(everything->inventory.toolkits.empty());
    bool found_124 = false;
    for (const auto& e : everything->inventory.toolkits) found_124 = found_124 || e.toolkit.path == "/usr/local/cuda-12.4";
    EXPECT_TRUE(found_124);
}

TEST(CommandsMachine, OpenMachineSaysWhatIsMissingKbFirst) {
    MachineOptions options;
    options.root = "/nonexistent/machine";
    auto no_root = open_machine(options);
    ASSERT_FALSE(no_root);
    EXPECT_EQ(no_root.error().code, Errc::not_found);
    EXPECT_EQ(no_root.error().message, "root folder /nonexistent/machine: No such file or directory");

    options.kb_dir = "/nonexistent/kb";
    auto no_kb = open_machine(options);
    ASSERT_FALSE(no_kb);
    EXPECT_EQ(no_kb.error().message, "knowledge-base directory /nonexistent/kb does not exist");

    auto host = open_host(MachineOptions{});
    ASSERT_TRUE(host);
    EXPECT_FALSE(host->is_rooted()) << "no --root: this machine";
}

}  // namespace commands_machine_test
