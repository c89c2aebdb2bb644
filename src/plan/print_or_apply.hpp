#pragma once
// The one way a command that changes the machine shows its Plan: printed (a dry run) or applied,
// as text or JSON, with the exit status that says how it went.
#include <ostream>

#include "common/exit_status.hpp"
#include "host/host.hpp"
#include "plan/plan.hpp"

namespace cudoctor::plan {

/// Prints the plan (text or JSON) and, with `apply`, runs it and prints the outcome. Returns
/// healthy when printed or applied, problems when the apply stopped (rolled back or with an undo
/// printed), usage when preflight refused to start. CUDOCTOR_PLAN_FAIL_AT=N (the process
/// environment) makes step N fail, for tests of the rollback.
ExitStatus print_or_apply(const host::Host& host, const Plan& plan, bool apply, bool json, std::ostream& out);

}  // namespace cudoctor::plan
