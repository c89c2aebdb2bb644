#pragma once
// What the toolkit commands share: the machine (real or --root), probed once, and its inventory.
#include <memory>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "snapshot/snapshot.hpp"
#include "toolkits/inventory.hpp"

namespace cudoctor::toolkits {

struct Machine {
    host::Host host;
    snapshot::Snapshot snap;
    Inventory inventory;
};

/// Probes the machine (`root` set: the image there) and takes its inventory. Errc::not_found
/// when the root folder does not exist; a KB error as Kb::load reports it.
Expected<std::unique_ptr<Machine>> load_machine(const std::optional<std::string>& root, const std::optional<std::string>& kb_dir,
                                                const InventoryOptions& options = {});

}  // namespace cudoctor::toolkits
