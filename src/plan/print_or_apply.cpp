#include "plan/print_or_apply.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

#include "plan/apply.hpp"
#include "plan/render.hpp"
#include "report/style.hpp"

namespace cudoctor::plan {

ExitStatus print_or_apply(const host::Host& host, const Plan& plan, const Showing& showing, std::ostream& out, std::ostream& err) {
    if (!showing.apply) {
        if (showing.json) {
            out << report::json_text(nlohmann::json{{"plan", to_json(plan)}, {"applied", false}}) << "\n";
        } else if (showing.quiet) {
            out << headline(plan) << "\n";
        } else {
            render_text(plan, out);
            if (!plan.empty())
                out << "\nDry run: nothing was changed. Run again with --apply to do it"
                    << (plan.touches_system() ? " (as root: sudo)." : ".") << "\n";
        }
        return ExitStatus::healthy;
    }
    ApplyOptions options;
    if (const char* f = std::getenv("CUDOCTOR_PLAN_FAIL_AT")) {
        std::size_t n = 0;
        auto [end, ec] = std::from_chars(f, f + std::strlen(f), n);
        if (ec == std::errc() && n > 0) options.fail_at = n;
    }
    auto result = plan::apply(host, plan, options);
    if (showing.json) {
        out << report::json_text(nlohmann::json{{"plan", to_json(plan)}, {"applied", true}, {"result", to_json(result)}}) << "\n";
    } else if (showing.quiet) {
        out << verdict_line(result, plan) << "\n";
        // What stopped it, and what is left to undo by hand, are errors: said whatever -q asks.
        const std::string who = "cudoctor" + (showing.command.empty() ? std::string() : " " + showing.command) + ": ";
        for (const auto& p : result.preflight) err << who << p << "\n";
        if (result.failed_step)
            err << who << "step " << *result.failed_step + 1 << ": " << result.steps[*result.failed_step].message << "\n";
        for (const auto& u : result.manual_undo) err << who << "undo by hand: " << u << "\n";
    } else {
        render_text(plan, out);
        out << "\n";
        render_text(result, plan, out);
    }
    if (!result.preflight.empty()) return ExitStatus::usage;
    return result.ok() ? ExitStatus::healthy : ExitStatus::problems;
}

}  // namespace cudoctor::plan
