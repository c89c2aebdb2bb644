#include "formats/conda_meta.hpp"

#include "formats/json_text.hpp"

namespace cudoctor::formats {

Expected<CondaPackage> parse_conda_meta(std::string_view text) {
    using nlohmann::json;
    // Keep only the members read below: "files" and "paths_data" can hold megabytes of paths.
    const json::parser_callback_t keep_wanted = [](int depth, json::parse_event_t event, json& parsed) {
        if (event != json::parse_event_t::key || depth != 1 || !parsed.is_string()) return true;
        const auto& key = parsed.get_ref<const std::string&>();
        return key == "name" || key == "version" || key == "build" || key == "channel" || key == "depends";
    };
    auto doc = detail::parse_json_object(text, keep_wanted);
    if (!doc) return fail(doc.error().code, doc.error().message);
    CondaPackage out;
    out.name = detail::string_member(*doc, "name");
    if (out.name.empty()) return fail(Errc::parse, "no \"name\" string in conda-meta record");
    out.version = detail::string_member(*doc, "version");
    out.build = detail::string_member(*doc, "build");
    out.channel = detail::string_member(*doc, "channel");
    if (const auto it = doc->find("depends"); it != doc->end() && it->is_array()) {
        for (const auto& dep : *it)
            if (dep.is_string()) out.depends.push_back(dep.get<std::string>());
    }
    return out;
}

}  // namespace cudoctor::formats
