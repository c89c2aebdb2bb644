#pragma once
// The result of `cudoctor verify`: levels of steps, each PASS / FAIL / SKIP with the reason, and
// for a FAIL its cause and fix (the check rule's own where one matches). Plain data with a
// lossless JSON round trip, so a report saved on a GPU machine renders anywhere.
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace cudoctor::verify {

inline constexpr int kReportSchema = 1;

enum class Status { pass, fail, skip };

/// "PASS", "FAIL", "SKIP".
const char* to_string(Status status);
/// Parses "PASS" / "FAIL" / "SKIP" (any case); nullopt for anything else.
std::optional<Status> status_from_string(std::string_view text);

/// One fact a step found ("library" = "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06").
struct Detail {
    std::string key;
    std::string value;
    friend bool operator==(const Detail&, const Detail&) = default;
};

struct Step {
    Step() = default;
    Step(std::string id_, std::string title_, Status status_ = Status::skip, std::string reason_ = {}, std::string cause_ = {},
         std::string fix_ = {}, std::string rule_ = {}, std::vector<Detail> details_ = {})
        : id(std::move(id_)),
          title(std::move(title_)),
          status(status_),
          reason(std::move(reason_)),
          cause(std::move(cause_)),
          fix(std::move(fix_)),
          rule(std::move(rule_)),
          details(std::move(details_)) {}

    std::string id;     ///< stable: "driver-api", "nvml", "nvcc-compile", "framework-torch", …
    std::string title;  ///< what is checked, in the user's words
    Status status = Status::skip;
    std::string reason;  ///< one line: what happened (also why a step was skipped)
    std::string cause;   ///< FAIL only: why it failed
    std::string fix;     ///< FAIL only: exact commands for this machine ("" when none is known)
    std::string rule;    ///< the check rule the cause and fix come from ("" when verify's own)
    std::vector<Detail> details;
    friend bool operator==(const Step&, const Step&) = default;
};

struct Level {
    Level() = default;
    Level(int number_, std::string title_, std::vector<Step> steps_ = {})
        : number(number_), title(std::move(title_)), steps(std::move(steps_)) {}

    int number = 1;
    std::string title;
    std::vector<Step> steps;
    friend bool operator==(const Level&, const Level&) = default;
};

struct Report {
    int schema = kReportSchema;
    std::string tool_version;
    std::string root;                    ///< "/" or the --root folder
    int requested_level = 3;             ///< --level
    std::vector<std::string> overrides;  ///< active overrides (CUDOCTOR_DRIVER_LIBRARY_PATH=…)
    std::vector<Level> levels;
    friend bool operator==(const Report&, const Report&) = default;
};

/// Whether every step that applies passed (no FAIL; SKIP does not count against it).
bool all_passed(const Report& report);
/// The first failed step, or nullptr.
const Step* first_failure(const Report& report);
/// Whether anything was verified: a step passed that asked the driver, a compiler or a library
/// (the CUDA_VISIBLE_DEVICES step only reads the environment). False on an inert machine image.
bool verified_anything(const Report& report);
/// "PASS", "FAIL" or "SKIP" (no failure, and nothing could be verified).
std::string verdict_of(const Report& report);
/// Why nothing was verified, in one clause ("nothing verified: a machine image is inert …").
std::string nothing_verified(const Report& report);
/// The verdict in one line, for --quiet: "PASS: 7 steps passed, 2 skipped",
/// "FAIL at driver-api: <its reason>" or "SKIP: nothing verified: …".
std::string verdict_line(const Report& report);

/// The report as versioned JSON text (pretty, two-space indent).
std::string to_json_text(const Report& report);
/// A report from to_json_text(). Errc::parse for text that is not JSON or not a report (a wrong
/// shape names the field), Errc::unsupported for a newer schema.
Expected<Report> from_json_text(std::string_view text);

/// Text: one line per step ("  PASS  driver-api  …"), indented reason, cause and fix; colour
/// only when `color`.
void render_text(const Report& report, bool color, std::ostream& out);
/// Markdown ready to paste into a GitHub issue: a table per level, causes and fixes in blocks.
void render_markdown(const Report& report, std::ostream& out);

}  // namespace cudoctor::verify
