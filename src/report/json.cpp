#include "report/report.hpp"
#include "snapshot/snapshot_json.hpp"

namespace cudoctor::report {

void render_json(const snapshot::Snapshot& snap, std::ostream& out) {
    out << snapshot::to_json_value(snap).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace cudoctor::report
