#pragma once
// The one way a command that changes the machine shows its Plan: printed (a dry run) or applied,
// as text or JSON, with the exit status that says how it went.
#include <ostream>
#include <string>

#include "common/exit_status.hpp"
#include "host/host.hpp"
#include "plan/plan.hpp"

namespace cudoctor::plan {

/// How a command asked for its plan.
struct Showing {
    bool apply = false;   ///< --apply: run it
    bool json = false;    ///< --json (-q does not change it)
    bool quiet = false;   ///< -q/--quiet: one line on `out` (headline() or verdict_line()), what failed on `err`
    std::string command;  ///< "switch": names the command in the lines -q writes to `err`
};

/// Prints the plan (text or JSON) and, with `apply`, runs it and prints the outcome. Returns
/// healthy when printed or applied, problems when the apply stopped (rolled back or with an undo
/// printed), usage when preflight refused to start. CUDOCTOR_PLAN_FAIL_AT=N (the process
/// environment) makes step N fail, for tests of the rollback.
ExitStatus print_or_apply(const host::Host& host, const Plan& plan, const Showing& showing, std::ostream& out, std::ostream& err);

}  // namespace cudoctor::plan
