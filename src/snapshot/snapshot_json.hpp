#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::snapshot {

/// The Snapshot as JSON: every member under its own name, unset optionals as null.
nlohmann::json to_json_value(const Snapshot& snap);
/// Reads a saved snapshot. Errc::parse for invalid JSON or a wrong-typed member (the message
/// names it), Errc::unsupported for another schema version. Missing members take defaults, so
/// an older snapshot with fewer facts still loads.
Expected<Snapshot> from_json_text(std::string_view text);

}  // namespace cudoctor::snapshot
