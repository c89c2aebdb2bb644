#pragma once
// Removing one toolkit, built from who installed what: first the machine stops pointing at it
// (/usr/local/cuda, update-alternatives, ld.so.conf.d, shell start-up files, modulefiles), then
// its installer removes it (the runfile's cuda-uninstaller, dpkg --purge of its exact packages,
// pip or conda), then what is left of its folder goes and the loader cache is refreshed.
#include "common/error.hpp"
#include "host/host.hpp"
#include "plan/plan.hpp"
#include "snapshot/snapshot.hpp"
#include "toolkits/inventory.hpp"

namespace cudoctor::toolkits {

/// The removal plan for `target`. Never lists a driver package or driver file. Errc::unsupported
/// when the install method is unknown and no folder can be removed safely.
Expected<plan::Plan> plan_uninstall(const host::Host& host, const snapshot::Snapshot& snap, const Inventory& inv, const Entry& target);

/// `line` with every colon-list entry naming `dir` (or below it) taken out:
/// "export PATH=/usr/local/cuda-12.4/bin:/usr/local/cuda-11.8/bin:$PATH" without 12.4 →
/// "export PATH=/usr/local/cuda-11.8/bin:$PATH".
std::string strip_folder(std::string_view line, std::string_view dir);

}  // namespace cudoctor::toolkits
