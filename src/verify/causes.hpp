#pragma once
// Why a step failed: the check rule that explains it where one fired (its title, why and fix,
// so verify, check and explain say the same thing), else verify's own reading of the error code.
#include <string>
#include <string_view>
#include <vector>

#include "snapshot/snapshot.hpp"
#include "verify/report.hpp"

namespace cudoctor::verify {

/// The first of `ids` among the Snapshot's findings (a consequence is traded for its root
/// cause when that fired too), or nullptr.
const snapshot::Finding* fired_rule(const snapshot::Snapshot& snap, const std::vector<std::string_view>& ids);

/// Marks `step` failed and fills its cause, fix and rule from `finding`.
void blame_rule(Step& step, const snapshot::Finding& finding);

/// Marks `step` failed with verify's own cause and fix — unless one of `rule_ids` fired, whose
/// finding then wins.
void blame(Step& step, const snapshot::Snapshot& snap, const std::vector<std::string_view>& rule_ids, std::string cause, std::string fix);

/// CUresult names for the codes a doctor meets ("CUDA_ERROR_NO_DEVICE"); "CUresult N" otherwise.
std::string cu_result_name(int code);
/// What a CUresult means on a real machine and what usually causes it; "" for codes without a
/// known story.
std::string cu_result_meaning(int code);
/// nvmlReturn_t names ("NVML_ERROR_LIB_RM_VERSION_MISMATCH"); "nvmlReturn_t N" otherwise.
std::string nvml_result_name(int code);

}  // namespace cudoctor::verify
