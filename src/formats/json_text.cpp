#include "formats/json_text.hpp"

#include "common/text.hpp"

namespace cudoctor::formats::detail {
namespace {

// nlohmann::json reports why a text is not JSON only through an exception or a SAX handler; this
// handler keeps the message and where, and runs only after a failed parse.
class ErrorOnly final : public nlohmann::json_sax<nlohmann::json> {
  public:
    std::string message;
    std::size_t byte = 0;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
        byte = position;
        message = ex.what();
        return false;
    }
};

}  // namespace

JsonSyntaxError json_syntax_error(std::string_view text) {
    ErrorOnly handler;
    if (nlohmann::json::sax_parse(text, &handler)) return {};
    std::string_view msg = handler.message;
    // "[json.exception.parse_error.101] parse error at ..." → "parse error at ...".
    if (msg.starts_with("[json.exception.")) {
        const auto close = msg.find("] ");
        if (close != std::string_view::npos) msg.remove_prefix(close + 2);
    }
    if (msg.empty()) msg = "unknown error";
    return {handler.byte, text::printable(msg, 200)};
}

Expected<nlohmann::json> parse_json_object(std::string_view text, const nlohmann::json::parser_callback_t& callback) {
    try {
        auto doc = nlohmann::json::parse(text, callback, /*allow_exceptions=*/false);
        if (doc.is_discarded()) return fail(Errc::parse, "not valid JSON: " + json_syntax_error(text).message);
        if (!doc.is_object()) return fail(Errc::parse, std::string("not a JSON object, but ") + doc.type_name());
        return doc;
    } catch (const nlohmann::json::exception& e) {
        // Not expected with allow_exceptions=false; kept so that no parser ever throws outward.
        return fail(Errc::parse, std::string("not valid JSON: ") + e.what());
    }
}

std::string string_member(const nlohmann::json& obj, std::string_view key) {
    if (!obj.is_object()) return {};
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_string()) return {};
    return it->get<std::string>();
}

}  // namespace cudoctor::formats::detail
