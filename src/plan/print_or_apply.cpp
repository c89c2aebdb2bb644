#include "plan/print_or_apply.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

#include "plan/apply.hpp"
#include "plan/render.hpp"

namespace cudoctor::plan {

ExitStatus print_or_apply(const host::Host& host, const Plan& plan, bool apply, bool json, std::ostream& out) {
    if (!apply) {
        if (json) {
            out << nlohmann::json{{"plan", to_json(plan)}, {"applied", false}}.dump(2) << "\n";
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
    if (json) {
        out << nlohmann::json{{"plan", to_json(plan)}, {"applied", true}, {"result", to_json(result)}}.dump(2) << "\n";
    } else {
        render_text(plan, out);
        out << "\n";
        render_text(result, plan, out);
    }
    if (!result.preflight.empty()) return ExitStatus::usage;
    return result.ok() ? ExitStatus::healthy : ExitStatus::problems;
}

}  // namespace cudoctor::plan
