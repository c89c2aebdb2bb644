#pragma once
// Why a step failed: the check rule that explains it where one fired (its title, why and fix,
// so verify, check and explain say the same thing), else verify's own reading of the error code.
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "rules/ids.hpp"
#include "snapshot/snapshot.hpp"
#include "verify/report.hpp"

namespace cudoctor::verify {

/// The first of `ids` among the Snapshot's findings (a consequence is traded for its root
/// cause when that fired too), or nullptr.
const snapshot::Finding* fired_rule(const snapshot::Snapshot& snap, const std::vector<std::string_view>& ids);

/// Marks `step` failed and fills its cause, fix and rule from `finding`.
void blame_rule(Step& step, const snapshot::Finding& finding);

/// The rules a failed step may be blamed on. A literal list ({"driver-library-mismatch"}) is
/// checked against the id registry (rules/ids.hpp) when compiled; a list built at run time keeps
/// only registered rule ids (the registry test walks those lists in src/verify/).
class RuleIds {
  public:
    RuleIds() = default;
    RuleIds(std::initializer_list<rules::RuleId> ids);
    RuleIds(const std::vector<std::string_view>& ids);
    const std::vector<std::string_view>& ids() const { return m_ids; }

  private:
    std::vector<std::string_view> m_ids;
};

/// Marks `step` failed with verify's own cause and fix — unless one of `rule_ids` fired, whose
/// finding then wins.
void blame(Step& step, const snapshot::Snapshot& snap, const RuleIds& rule_ids, std::string cause, std::string fix);

/// CUresult names for the codes a doctor meets ("CUDA_ERROR_NO_DEVICE"); "CUresult N" otherwise.
std::string cu_result_name(int code);
/// What a CUresult means on a real machine and what usually causes it; "" for codes without a
/// known story.
std::string cu_result_meaning(int code);
/// nvmlReturn_t names ("NVML_ERROR_LIB_RM_VERSION_MISMATCH"); "nvmlReturn_t N" otherwise.
std::string nvml_result_name(int code);

}  // namespace cudoctor::verify
