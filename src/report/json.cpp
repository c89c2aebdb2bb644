#include "report/report.hpp"
#include "snapshot/snapshot_json.hpp"

namespace cudoctor::report {

void render_json(const snapshot::Snapshot& snap, std::ostream& out) {
    auto j = snapshot::to_json_value(snap);
    // The verdict as the text report says it; a reader of the snapshot recomputes it (like the findings).
    const std::string cannot = cannot_run_reason(snap);
    j["verdict"] = {{"line", verdict_line(snap)}, {"cannot_run", cannot.empty() ? nlohmann::json(nullptr) : nlohmann::json(cannot)}};
    out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace cudoctor::report
