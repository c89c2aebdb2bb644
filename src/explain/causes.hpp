#pragma once
// The causes `cudoctor explain` can name: what each one means, how it is fixed in general, and
// how fundamental it is. The catalog (data/error_catalog.tsv) maps messages to these ids; the
// machine tie-in (tie_in.hpp) then makes the explanation and the fix specific to a Snapshot.
#include <string_view>
#include <vector>

#include "snapshot/kinds.hpp"

#include "rules/ids.hpp"

namespace cudoctor::explain {

struct CauseInfo {
    rules::Id id;                       ///< "driver-too-old", registered in rules/ids.hpp
    int rank;                           ///< lower = more fundamental; causes are reported in this order
    std::string_view title;             ///< one line
    std::string_view explanation;       ///< what the message means
    std::vector<std::string_view> fix;  ///< the general fix, one step per entry
    /// Causes this one is a consequence of when both are in the same log (a missing driver makes
    /// CUDA unavailable, and an unavailable CUDA fails the test).
    std::vector<rules::Id> follows_from;
    snapshot::Layer layer = snapshot::Layer::platform;  ///< the registry's
    /// Causes that, found in the same log, make this one's low-confidence rows enough to name it
    /// (a "sudo make" line is nothing alone; beside "nvcc: not found" it is the cause).
    std::vector<rules::Id> found_with = {};
};

/// Every cause, in rank order (most fundamental first).
const std::vector<CauseInfo>& all_causes();
/// The cause with this id (or, for one release, its old id: see rules/ids.hpp), or nullptr.
const CauseInfo* find_cause(std::string_view id);

}  // namespace cudoctor::explain
