#include "verify/verify.hpp"

#include <fmt/format.h>

#include "driver/library_search.hpp"
#include "verify/levels.hpp"

namespace cudoctor::verify {
namespace detail {

std::string needs_gpu(const Context& ctx) {
    return "needs a working driver and GPU; level 1 failed" + (ctx.driver_trouble.empty() ? std::string() : ": " + ctx.driver_trouble);
}

std::string gib(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024)); }

}  // namespace detail

Report run_verify(const host::Host& host, const kb::Kb& kb, const snapshot::Snapshot& snap, const Options& options) {
    Report report;
    report.tool_version = CUDOCTOR_VERSION;
    report.root = host.root();
    report.requested_level = options.level;
    if (auto o = driver::active_override()) report.overrides.push_back(*o);
    for (const auto& o : snap.overrides) report.overrides.push_back(o);
    detail::Context ctx{host, kb, snap, options, false, {}, std::nullopt, {}, {}};
    report.levels.push_back(detail::level1(ctx));
    if (options.level >= 2) report.levels.push_back(detail::level2(ctx));
    if (options.level >= 3) report.levels.push_back(detail::level3(ctx));
    return report;
}

}  // namespace cudoctor::verify
