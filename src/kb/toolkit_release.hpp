#pragma once
// The one place that turns what a machine says about an installed toolkit (its release, its
// component versions, the version nvcc reports) into the toolkit releases the KB tables speak of.
// A toolkit known only by a component can be several releases (nvcc 13.0.88 shipped in 13.0.1 and
// 13.0.2); every query here answers for the most lenient of them, so that no rule raises an alarm
// the facts do not prove.
#include <optional>
#include <vector>

#include "common/version.hpp"
#include "kb/kb.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::kb {

/// The releases an installed toolkit can be, ascending:
///  - its release when the machine names it exactly (version.json "cuda": 12.6.2);
///  - else the releases that shipped its component versions (cuda_components.tsv): those every
///    known component agrees on (nvcc 13.0.88 + cudart 13.0.96 → 13.0.2), all of them when the
///    components disagree; a partial release ("12.6" from a date-stamped version.json) keeps
///    only releases of that minor;
///  - else every release cuda_driver.tsv lists for its major.minor: the facts do not say which.
/// `version` stands in for a missing cuda_nvcc component (snapshots written before the version
/// model). Empty when nothing parses as a version.
std::vector<Version> possible_releases(const Kb& kb, const snapshot::Toolkit& tk);

/// The lowest Table-3 minimum driver among possible_releases() (12.6.2 → 560.35.03; nvcc 13.0.88
/// → 13.0.1's 580.82.07). nullopt when no possible release names a driver.
std::optional<Version> min_driver_for(const Kb& kb, const snapshot::Toolkit& tk, DriverOs os = DriverOs::linux_driver);

/// The highest gcc major any of its possible releases accepts (cuda_gcc.tsv); nullopt when unknown.
std::optional<int> max_gcc_for(const Kb& kb, const snapshot::Toolkit& tk);

/// The one release to stand for the toolkit where a caller needs a single version to look up in
/// the release tables (`plan` keeping an installed toolkit): its release when known, else the
/// possible release that asks least of the driver (nvcc 12.6.77 → 12.6.2, 13.0.88 → 13.0.1),
/// else `version` as parsed. nullopt when nothing parses.
std::optional<Version> lenient_release(const Kb& kb, const snapshot::Toolkit& tk);

/// The release to name to a user: the toolkit's own release when known, else the one release its
/// components map to, else "" (the caller shows `version`).
std::string release_label(const Kb& kb, const snapshot::Toolkit& tk);

}  // namespace cudoctor::kb
