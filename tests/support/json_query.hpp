#pragma once
// Small queries over the JSON that the binary prints.
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

}  // namespace cudoctor::test
