#pragma once
// What the toolkit commands share: the machine (real or --root), probed once, and its inventory;
// and the way every one of them prints and applies a Plan.
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "common/error.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "plan/plan.hpp"
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

/// Prints the plan (text or JSON) and, with `apply`, runs it and prints the outcome. Returns
/// 0 when printed or applied, 1 when the apply stopped (rolled back or with an undo printed),
/// 2 when preflight refused to start. CUDOCTOR_PLAN_FAIL_AT=N (the process environment) makes
/// step N fail, for tests of the rollback.
int print_or_apply(const host::Host& host, const plan::Plan& plan, bool apply, bool json, std::ostream& out);

}  // namespace cudoctor::toolkits
