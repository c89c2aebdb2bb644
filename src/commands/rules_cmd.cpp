#include "commands/rules_cmd.hpp"

#include <memory>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands/command.hpp"
#include "report/style.hpp"
#include "rules/rules.hpp"

namespace cudoctor::commands {

ExitStatus run_rules(const std::optional<std::string>& id, const RulesShowing& showing, std::ostream& out, std::ostream& err) {
    const bool json = showing.json;
    const auto& rules = rules::all_rules();
    if (!id) {
        if (json) {
            auto list = nlohmann::json::array();
            for (const auto& r : rules)
                list.push_back({{"id", r.id},
                                {"severity", snapshot::to_string(r.severity)},
                                {"layer", snapshot::to_string(r.layer)},
                                {"summary", r.summary}});
            out << report::json_text(list) << "\n";
        } else if (showing.quiet) {
            std::size_t errors = 0, warnings = 0;
            for (const auto& r : rules) {
                if (r.severity == snapshot::Severity::error) ++errors;
                else if (r.severity == snapshot::Severity::warning) ++warnings;
            }
            out << fmt::format("{} rules: {} error, {} warning, {} info\n", rules.size(), errors, warnings, rules.size() - errors - warnings);
        } else {
            for (const auto& r : rules)
                out << fmt::format("{:<34} {:<8} {:<12} {}\n", r.id, snapshot::to_string(r.severity), snapshot::to_string(r.layer),
                                   r.summary);
        }
        return ExitStatus::healthy;
    }
    const auto* rule = rules::find_rule(*id);
    if (!rule) {
        std::string near;
        for (const auto& r : rules)
            if (r.id.find(*id) != std::string_view::npos || id->find(snapshot::to_string(r.layer)) != std::string::npos)
                near += (near.empty() ? "" : ", ") + std::string(r.id);
        err << "cudoctor: no rule '" << *id << "'" << (near.empty() ? "" : " (did you mean: " + near + "?)")
            << "; `cudoctor rules` lists them\n";
        return ExitStatus::usage;
    }
    if (json) {
        out << report::json_text(nlohmann::json{{"id", rule->id},
                                                {"severity", snapshot::to_string(rule->severity)},
                                                {"layer", snapshot::to_string(rule->layer)},
                                                {"summary", rule->summary},
                                                {"explanation", rule->explanation}})
            << "\n";
    } else if (showing.quiet) {
        out << fmt::format("{}  ({} · {} layer): {}\n", rule->id, snapshot::to_string(rule->severity), snapshot::to_string(rule->layer),
                           rule->summary);
    } else {
        out << fmt::format("{}  ({} · {} layer)\n\nwhat it catches: {}\n\nwhy it matters and how it is fixed: {}\n", rule->id,
                           snapshot::to_string(rule->severity), snapshot::to_string(rule->layer), rule->summary, rule->explanation);
    }
    return ExitStatus::healthy;
}

Command add_rules_command(CLI::App& app) {
    struct Options {
        std::optional<std::string> id;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("rules", "list the rules check applies, or explain one");
    cmd->add_option("id", options->id, "a rule id: explain it");
    cmd->add_flag("--json", options->json, "print JSON");
    return {cmd, [options](const Output& o) { return run_rules(options->id, {options->json, o.quiet}, o.out, o.err); }};
}

}  // namespace cudoctor::commands
