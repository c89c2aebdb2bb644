#pragma once
// Small queries over the JSON that the binary prints.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace cudoctor::test {

/// The first object in `array` whose `key` equals `value`, or nullptr (also when `array` is no
/// array).
inline const nlohmann::json* find_by(const nlohmann::json& array, const std::string& key, const nlohmann::json& value) {
    if (!array.is_array()) return nullptr;
    for (const auto& item : array) {
        if (item.is_object() && item.contains(key) && item.at(key) == value) return &item;
    }
    return nullptr;
}

/// The finding with this id in a `check --json` report (or a snapshot), or nullptr.
inline const nlohmann::json* finding(const nlohmann::json& report, const std::string& id) {
    if (!report.is_object() || !report.contains("findings")) return nullptr;
    return find_by(report.at("findings"), "id", id);
}

/// The step with this id in a `verify --json` report, whichever level holds it; throws (naming
/// the report) when there is none, so a test's next line never reads a missing step.
inline const nlohmann::json& verify_step(const nlohmann::json& report, const std::string& id) {
    for (const auto& level : report.at("levels"))
        for (const auto& s : level.at("steps"))
            if (s.at("id") == id) return s;
    throw std::runtime_error("no step " + id + " in\n" + report.dump(2));
}

}  // namespace cudoctor::test
