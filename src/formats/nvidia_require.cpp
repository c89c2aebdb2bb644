#include "formats/nvidia_require.hpp"

#include "common/text.hpp"

namespace cudoctor::formats {
namespace {

RequireCondition parse_condition(std::string_view text) {
    RequireCondition c;
    const auto at = text.find_first_of("<>=!");
    if (at == std::string_view::npos || at == 0) {
        c.key = std::string(text);
        return c;
    }
    auto end = text.find_first_not_of("<>=!", at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view op = text.substr(at, end - at);
    c.key = std::string(text.substr(0, at));
    c.value = std::string(text.substr(end));
    if (op == "=" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=") c.op = std::string(op);
    return c;
}

}  // namespace

RequireExpression parse_nvidia_require(std::string_view text) {
    RequireExpression out;
    for (auto alternative : text::fields(text)) {
        std::vector<RequireCondition> conditions;
        for (auto condition : text::split(alternative, ',')) {
            condition = text::trim(condition);
            if (!condition.empty()) conditions.push_back(parse_condition(condition));
        }
        if (!conditions.empty()) out.push_back(std::move(conditions));
    }
    return out;
}

}  // namespace cudoctor::formats
