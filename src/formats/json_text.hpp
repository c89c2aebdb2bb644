#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

/// The one way the parsers in formats/ read JSON: nlohmann::json without exceptions, and
/// accessors that check every type, so `{"cuda": 5}` is a missing value, never a throw.
namespace cudoctor::formats::detail {

/// Parses `text`, which must be one JSON object. `callback` may discard members while parsing
/// (see nlohmann::json::parser_callback_t), so a huge array never has to be built.
/// Errc::parse "not valid JSON: <the parser's message>" or "not a JSON object, but <type>".
Expected<nlohmann::json> parse_json_object(std::string_view text, const nlohmann::json::parser_callback_t& callback = nullptr);

/// Where and why `text` is not valid JSON: the byte offset the parser stopped at (the text's
/// length or more when the document just ends early: a truncated file) and its message
/// ("parse error at line 3, column 1: …"). For a valid text: {0, ""}.
struct JsonSyntaxError {
    std::size_t byte = 0;
    std::string message;
};
JsonSyntaxError json_syntax_error(std::string_view text);

/// obj[key] when obj is an object and that member is a string; "" otherwise.
std::string string_member(const nlohmann::json& obj, std::string_view key);

}  // namespace cudoctor::formats::detail
