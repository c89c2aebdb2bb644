#pragma once
// What makes a JSON document a machine snapshot: its "kind", or (in snapshots written before
// "kind" existed) the members every machine snapshot has. Every reader of saved machines
// (check --snapshot, explain --snapshot, fleet) reads through here, so a verify report or a bare
// {"schema": 1} is refused instead of being taken for an empty, healthy machine.
#include <string_view>

#include "common/error.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::snapshot {

/// The "kind" member to_json_value writes into every machine snapshot.
inline constexpr std::string_view kMachineKind = "cudoctor-machine";

/// A machine snapshot from JSON text: from_json_text's errors first (invalid JSON, another
/// schema, a wrong-typed member), then Errc::parse when the document is not a machine: a "kind"
/// other than kMachineKind, or, without "kind", a missing or wrong-typed required member
/// (tool_version, root, gpus, driver, toolkits, environment, platform). The message is one line
/// saying what the document is instead where that is known ("a `cudoctor verify --json` report").
[[nodiscard]] Expected<Snapshot> machine_from_json_text(std::string_view text);

}  // namespace cudoctor::snapshot
