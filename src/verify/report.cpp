// The verify report's data helpers and its JSON round trip.
#include "verify/report.hpp"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "report/style.hpp"

namespace cudoctor::verify {

void to_json(nlohmann::json& j, const Status& s) { j = to_string(s); }
void from_json(const nlohmann::json& j, Status& s) {
    auto parsed = j.is_string() ? status_from_string(j.get<std::string>()) : std::nullopt;
    if (!parsed) throw nlohmann::json::type_error::create(302, "a step status must be \"PASS\", \"FAIL\" or \"SKIP\"", &j);
    s = *parsed;
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Detail, key, value)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Step, id, title, status, reason, cause, fix, rule, details)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Level, number, title, steps)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report, schema, tool_version, root, requested_level, overrides, levels)

const char* to_string(Status status) {
    switch (status) {
        case Status::pass: return "PASS";
        case Status::fail: return "FAIL";
        case Status::skip: return "SKIP";
    }
    return "?";
}

std::optional<Status> status_from_string(std::string_view text) {
    std::string upper(text);
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (upper == "PASS") return Status::pass;
    if (upper == "FAIL") return Status::fail;
    if (upper == "SKIP") return Status::skip;
    return std::nullopt;
}

const Step* first_failure(const Report& report) {
    for (const auto& level : report.levels)
        for (const auto& step : level.steps)
            if (step.status == Status::fail) return &step;
    return nullptr;
}

bool all_passed(const Report& report) { return first_failure(report) == nullptr; }

bool verified_anything(const Report& report) {
    for (const auto& level : report.levels)
        for (const auto& step : level.steps)
            if (step.status == Status::pass && step.id != "cuda-visible-devices") return true;
    return false;
}

std::string verdict_of(const Report& report) {
    if (!all_passed(report)) return "FAIL";
    return verified_anything(report) ? "PASS" : "SKIP";
}

std::string nothing_verified(const Report& report) {
    return report.root != "/" && !report.root.empty()
               ? "nothing verified: a machine image is inert (nothing in it is run or loaded); cudoctor check --root reads it"
               : "nothing verified: every step was skipped";
}

std::string verdict_line(const Report& report) {
    if (const Step* failed = first_failure(report)) return "FAIL at " + failed->id + ": " + failed->reason;
    if (!verified_anything(report)) return "SKIP: " + nothing_verified(report);
    std::size_t passed = 0, skipped = 0;
    for (const auto& level : report.levels)
        for (const auto& step : level.steps) (step.status == Status::pass ? passed : skipped) += 1;
    return "PASS: " + std::to_string(passed) + " steps passed, " + std::to_string(skipped) + " skipped";
}

std::string to_json_text(const Report& report) {
    nlohmann::json j = report;
    j["verdict"] = verdict_of(report);
    return cudoctor::report::json_text(j);
}

Expected<Report> from_json_text(std::string_view text) {
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return fail(Errc::parse, "not a JSON document");
    if (!j.is_object() || !j.contains("levels")) return fail(Errc::parse, "not a cudoctor verify report (no \"levels\")");
    if (!j.contains("schema") || !j["schema"].is_number_integer())
        return fail(Errc::parse, "not a cudoctor verify report (no \"schema\" number)");
    if (const int schema = j["schema"].get<int>(); schema != kReportSchema)
        return fail(Errc::unsupported, "verify report schema " + std::to_string(schema) + " is not supported (this cudoctor reads schema " +
                                           std::to_string(kReportSchema) + ")");
    try {
        return j.get<Report>();
    } catch (const nlohmann::json::exception& e) {
        return fail(Errc::parse, std::string("verify report member of the wrong type: ") + e.what());
    }
}

}  // namespace cudoctor::verify
