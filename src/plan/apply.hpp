#pragma once
// Executing a Plan: preflight first (every target writable, every program there, root where it
// is needed — otherwise nothing is changed), then each step in order through the Host's rooted
// paths, stopping at the first failure and rolling back what was done, or printing its undo.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "host/host.hpp"
#include "plan/plan.hpp"

namespace cudoctor::plan {

struct ApplyOptions {
    /// Test seam (CUDOCTOR_PLAN_FAIL_AT=N): step N (1-based) fails instead of running.
    std::optional<std::size_t> fail_at;
    std::chrono::milliseconds command_timeout{std::chrono::minutes(30)};
};

enum class StepStatus { not_run, done, failed, rolled_back, rollback_failed };

struct StepOutcome {
    StepStatus status = StepStatus::not_run;
    std::string message;  ///< why it failed, or what a command printed last
};

struct ApplyResult {
    std::vector<std::string> preflight;      ///< problems found before anything changed
    bool needs_root = false;                 ///< a preflight problem that running as root solves
    std::vector<StepOutcome> steps;          ///< one per plan step
    std::optional<std::size_t> failed_step;  ///< 0-based index of the step that failed
    /// Undo commands a person must still run (commands that ran, rollbacks that failed), in the
    /// order to run them. Empty when the machine is as it was, or when everything succeeded.
    std::vector<std::string> manual_undo;

    bool ok() const { return preflight.empty() && !failed_step; }
};

/// Runs the plan. Never throws; every failure is in the result. File steps work on
/// host.host_path() of paths whose folders are resolved inside the root (links never lead out
/// of it). A symbolic link is replaced by rename(2), so it is never missing, even on failure.
ApplyResult apply(const host::Host& host, const Plan& plan, const ApplyOptions& options = {});

}  // namespace cudoctor::plan
