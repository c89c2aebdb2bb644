#include "commands/docs.hpp"

#include <algorithm>
#include <memory>
#include <set>

#include "commands/build_info.hpp"
#include "commands/machine.hpp"
#include "common/text.hpp"
#include "host/files.hpp"

namespace cudoctor::commands {
namespace {

const std::set<std::string, std::less<>> k_toolkit_commands = {"use", "switch", "uninstall", "modulefile"};
const std::set<std::string, std::less<>> k_path_options = {"--root", "--kb",       "--snapshot", "--output",   "--out",   "--python",
                                                           "--log",  "--baseline", "--plot",     "--map-file", "--layers"};

bool visible(const CLI::Option* o) { return !o->get_group().empty(); }

/// "{error,warning}" anywhere in a CLI11 type name ("TEXT:{error,warning}") → the choices.
std::vector<std::string> choices_in(const std::string& type_name) {
    const auto open = type_name.find('{');
    const auto close = type_name.find('}', open);
    if (open == std::string::npos || close == std::string::npos) return {};
    std::vector<std::string> out;
    for (auto c : text::split(std::string_view(type_name).substr(open + 1, close - open - 1), ','))
        if (auto t = text::trim(c); !t.empty()) out.emplace_back(t);
    return out;
}

OptionDoc describe_option(const CLI::Option* o, const std::string& command, bool first_positional) {
    OptionDoc d;
    for (const auto& s : o->get_snames()) d.names.push_back("-" + s);
    for (const auto& l : o->get_lnames()) d.names.push_back("--" + l);
    d.help = o->get_description();
    d.required = o->get_required();
    d.default_value = o->get_default_str();
    const bool takes_value = o->get_items_expected_max() > 0;  // flags expect 0 items
    d.repeatable = o->get_expected_max() > 1 ||
                   (takes_value && o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll && o->get_expected_max() != 1);
    if (!takes_value) return d;
    const std::string type = o->get_type_name();
    d.value_name = type.substr(0, type.find(':'));
    if (d.value_name.empty()) d.value_name = "VALUE";
    d.choices = choices_in(type);
    // A shell name without a validator (init SHELL, use --shell): the three shells cudoctor writes for.
    if (d.choices.empty() && (o->get_name() == "shell" || o->get_name() == "--shell" || o->get_name() == "SHELL"))
        d.choices = {"bash", "zsh", "fish"};
    const bool positional = d.names.empty();
    if (!d.choices.empty()) d.kind = ValueKind::choice;
    else if (positional && first_positional && k_toolkit_commands.contains(command)) d.kind = ValueKind::toolkit;
    else if (std::any_of(d.names.begin(), d.names.end(), [](const std::string& n) { return k_path_options.contains(n); }))
        d.kind = ValueKind::path;
    else if (positional) d.kind = ValueKind::path;  // files, folders, logs: the likeliest by far
    else d.kind = ValueKind::text;
    if (positional) d.value_name = o->get_name();
    return d;
}

void collect_options(const CLI::App& app, const std::string& command, bool with_help, CommandDoc& out) {
    for (const CLI::Option* o : app.get_options([](const CLI::Option* opt) { return visible(opt); })) {
        const bool is_help = o == app.get_help_ptr() || o == app.get_help_all_ptr();
        if (is_help && !with_help) continue;
        const bool positional = o->get_lnames().empty() && o->get_snames().empty();
        auto d = describe_option(o, command, positional && out.positionals.empty());
        (positional ? out.positionals : out.options).push_back(std::move(d));
    }
    // Option groups are nameless subcommands: their options belong to this command.
    for (const CLI::App* group : app.get_subcommands([](const CLI::App* s) { return s->get_name().empty(); }))
        collect_options(*group, command, false, out);
}

std::string footer_of(const CLI::App& app) {
    // get_footer() joins a footer callback's text and the plain footer with '\n'.
    return std::string(text::trim(app.get_footer()));
}

ExitStatus write_or_print(const std::string& text, const std::string& output, const Output& o) {
    if (output.empty() || output == "-") {
        o.out << text;
        return ExitStatus::healthy;
    }
    if (auto written = host::write_atomically(output, text); !written) {
        o.err << "cudoctor __generate: " << written.error().message << "\n";
        return ExitStatus::usage;
    }
    return ExitStatus::healthy;
}

struct GenerateOptions {
    std::string what;
    std::string output;
};

ExitStatus run_generate(CLI::App& app, const GenerateOptions& o, const Output& output) {
    if (o.what == "examples") {
        const auto broken = broken_examples(app);
        for (const auto& line : broken) output.out << line << "\n";
        return broken.empty() ? ExitStatus::healthy : ExitStatus::problems;
    }
    const CliDoc doc = describe_cli(app);
    std::string text;
    if (o.what == "man") {
        const auto& info = build_info();
        text = man_page(doc, std::string(info.version), std::string(info.date));
    } else if (o.what == "bash") text = bash_completion(doc);
    else if (o.what == "zsh") text = zsh_completion(doc);
    else text = fish_completion(doc);
    return write_or_print(text, o.output, output);
}

struct CompleteOptions {
    std::string what;
    MachineOptions machine;  ///< --root only
};

/// Installed toolkit versions, one per line, for Tab: no child processes, errors stay silent
/// (a completion must never print noise into the user's command line).
ExitStatus run_complete(const CompleteOptions& o, std::ostream& out) {
    auto m = open_machine(o.machine, {.probe = Probe::toolkits});
    if (!m) return ExitStatus::usage;
    std::set<std::string> seen;
    for (const auto& t : m->snap.toolkits)
        if (!t.version.empty() && seen.insert(t.version).second) out << t.version << "\n";
    return ExitStatus::healthy;
}

std::vector<CommandDoc> describe_commands(const CLI::App& app, int depth) {
    std::vector<CommandDoc> out;
    if (depth == 0) return out;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); })) {
        CommandDoc c;
        c.name = sub->get_name();
        c.help = sub->get_description();
        collect_options(*sub, c.name, false, c);
        c.footer = footer_of(*sub);
        c.examples = examples_in(c.footer);
        c.children = describe_commands(*sub, depth - 1);
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace

CliDoc describe_cli(const CLI::App& app) {
    CliDoc doc;
    doc.name = app.get_name().empty() ? "cudoctor" : app.get_name();
    doc.description = app.get_description();
    CommandDoc globals;
    collect_options(app, "", true, globals);
    doc.global_options = std::move(globals.options);
    doc.commands = describe_commands(app, 2);
    return doc;
}

std::vector<std::string> examples_in(const std::string& footer) {
    std::vector<std::string> out;
    for (auto line : text::lines(footer)) {
        line = text::trim(line);
        if (line.starts_with("sudo ")) line = text::trim(line.substr(5));
        if (!line.starts_with("cudoctor ") && line != "cudoctor") continue;
        for (std::string_view end : {"  #", " | ", " > ", " >> ", " && ", " 2>"})
            if (auto at = line.find(end); at != std::string_view::npos) line = line.substr(0, at);
        out.emplace_back(text::trim(line));
    }
    return out;
}

std::vector<std::string> broken_examples(CLI::App& app) {
    std::vector<std::string> broken;
    for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return !s->get_name().empty() && !s->get_group().empty(); })) {
        if (sub->get_description() == "(not yet available)") continue;
        const auto examples = examples_in(footer_of(*sub));
        if (examples.empty()) broken.push_back("cudoctor " + sub->get_name() + ": no example in its --help");
        for (const auto& line : examples) {
            app.clear();
            try {
                app.parse(line, true);
                if (!app.got_subcommand(sub)) broken.push_back(line + ": does not choose `" + sub->get_name() + "`");
            } catch (const CLI::CallForHelp&) {
            } catch (const CLI::CallForAllHelp&) {
            } catch (const CLI::CallForVersion&) {
            } catch (const CLI::ParseError& e) {
                broken.push_back(line + ": " + e.what());
            }
        }
    }
    app.clear();
    return broken;
}

std::vector<Command> add_docs_commands(CLI::App& app) {
    auto gen = std::make_shared<GenerateOptions>();
    auto* generate = app.add_subcommand("__generate", "write the man page, a completion script, or check the examples");
    generate->group("");  // hidden: for the build and packagers
    generate->add_option("what", gen->what, "man | bash | zsh | fish | examples")
        ->required()
        ->check(CLI::IsMember({"man", "bash", "zsh", "fish", "examples"}));
    generate->add_option("-o,--output", gen->output, "write to FILE (atomically) instead of standard output");

    auto comp = std::make_shared<CompleteOptions>();
    auto* complete = app.add_subcommand("__complete", "values for shell completion");
    complete->group("");
    complete->add_option("what", comp->what, "toolkits")->required()->check(CLI::IsMember({"toolkits"}));
    add_machine_options(complete, comp->machine, {.kb = false});

    return {{generate, [&app, gen](const Output& o) { return run_generate(app, *gen, o); }},
            {complete, [comp](const Output& o) { return run_complete(*comp, o.out); }}};
}

}  // namespace cudoctor::commands
