#include "toolkits/machine.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>

#include "plan/apply.hpp"
#include "plan/render.hpp"
#include "probe/context.hpp"

namespace cudoctor::toolkits {

Expected<std::unique_ptr<Machine>> load_machine(const std::optional<std::string>& root, const std::optional<std::string>& kb_dir,
                                                const InventoryOptions& options) {
    auto kb = kb::Kb::load(kb_dir);
    if (!kb) return Unexpected<Error>(kb.error());
    auto host = root ? host::Host::rooted(*root) : Expected<host::Host>(host::Host::real());
    if (!host) return Unexpected<Error>(host.error());
    probe::Options probe_options;
    auto snap = probe::probe_machine(*host, *kb, probe_options);
    auto inv = take_inventory(*host, snap, options);
    return std::make_unique<Machine>(Machine{std::move(*host), std::move(snap), std::move(inv)});
}

int print_or_apply(const host::Host& host, const plan::Plan& plan, bool apply, bool json, std::ostream& out) {
    if (!apply) {
        if (json) {
            out << nlohmann::json{{"plan", plan::to_json(plan)}, {"applied", false}}.dump(2) << "\n";
        } else {
            plan::render_text(plan, out);
            if (!plan.empty())
                out << "\nDry run: nothing was changed. Run again with --apply to do it"
                    << (plan.touches_system() ? " (as root: sudo)." : ".") << "\n";
        }
        return 0;
    }
    plan::ApplyOptions options;
    if (const char* f = std::getenv("CUDOCTOR_PLAN_FAIL_AT")) {
        std::size_t n = 0;
        auto [end, ec] = std::from_chars(f, f + std::strlen(f), n);
        if (ec == std::errc() && n > 0) options.fail_at = n;
    }
    auto result = plan::apply(host, plan, options);
    if (json) {
        out << nlohmann::json{{"plan", plan::to_json(plan)}, {"applied", true}, {"result", plan::to_json(result)}}.dump(2) << "\n";
    } else {
        plan::render_text(plan, out);
        out << "\n";
        plan::render_text(result, plan, out);
    }
    if (!result.preflight.empty()) return 2;
    return result.ok() ? 0 : 1;
}

}  // namespace cudoctor::toolkits
