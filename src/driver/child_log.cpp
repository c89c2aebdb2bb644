#include "driver/child_log.hpp"

#include <dlfcn.h>
#include <link.h>

#include "common/text.hpp"

namespace cudoctor::driver {

void ChildLog::call(std::string_view name) const { m_writer.line(nlohmann::json{{"call", name}}.dump()); }
void ChildLog::returned(std::string_view name) const { m_writer.line(nlohmann::json{{"returned", name}}.dump()); }
void ChildLog::set(std::string_view key, const nlohmann::json& value) const {
    m_writer.line(nlohmann::json{{"set", key}, {"value", value}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}
void ChildLog::done() const { m_writer.line(R"({"done":true})"); }

std::string ChildAnswer::trouble() const {
    if (complete && raw.end == host::IsolatedEnd::finished) return {};
    const std::string what = raw.end == host::IsolatedEnd::finished ? "ended without answering" : raw.describe(timeout);
    if (!in_flight.empty()) return in_flight + " " + what;
    return "the child " + what;
}

ChildAnswer collect(const host::IsolatedResult& raw, std::chrono::milliseconds timeout) {
    ChildAnswer answer;
    answer.raw = raw;
    answer.timeout = timeout;
    for (const auto& line : text::split(raw.answer, '\n')) {
        auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (j.is_discarded() || !j.is_object()) continue;
        if (j.contains("call") && j["call"].is_string()) answer.in_flight = j["call"].get<std::string>();
        else if (j.contains("returned")) answer.in_flight.clear();
        else if (j.contains("set") && j["set"].is_string() && j.contains("value")) answer.facts[j["set"].get<std::string>()] = j["value"];
        else if (j.contains("done")) answer.complete = true;
    }
    return answer;
}

Expected<ChildAnswer> run_child(const std::function<void(const ChildLog&)>& fn, std::chrono::milliseconds timeout) {
    auto raw = host::run_isolated(
        [&](const host::IsolatedWriter& writer) {
            ChildLog log(writer);
            fn(log);
            log.done();
        },
        timeout);
    if (!raw) return Unexpected<Error>(raw.error());
    return collect(*raw, timeout);
}

void* open_first(const ChildLog& log, const std::vector<std::string>& candidates, std::string_view prefix) {
    const std::string p(prefix);
    nlohmann::json tried = nlohmann::json::array();
    for (const auto& name : candidates) {
        log.call("dlopen " + name);
        void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        log.returned("dlopen " + name);
        if (!handle) {
            const char* why = ::dlerror();
            tried.push_back(why ? std::string(why) : name + ": cannot be loaded");
            continue;
        }
        log.set(p + "tried", tried);
        link_map* map = nullptr;
        std::string file = name;
        if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) file = map->l_name;
        char real[4096];
        if (::realpath(file.c_str(), real)) file = real;
        log.set(p + "library", file);
        return handle;
    }
    log.set(p + "tried", tried);
    return nullptr;
}

void* find_symbol(const ChildLog&, void* handle, const char* name, nlohmann::json& missing) {
    void* sym = ::dlsym(handle, name);
    if (!sym) missing.push_back(name);
    return sym;
}

std::vector<std::string> tried_list(const ChildAnswer& answer, std::string_view prefix) {
    std::vector<std::string> out;
    if (auto it = answer.facts.find(std::string(prefix) + "tried"); it != answer.facts.end() && it->is_array())
        for (const auto& t : *it)
            if (t.is_string()) out.push_back(t.get<std::string>());
    return out;
}

}  // namespace cudoctor::driver
