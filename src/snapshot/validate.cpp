#include "snapshot/validate.hpp"

#include <array>

#include <nlohmann/json.hpp>

#include "snapshot/snapshot_json.hpp"

namespace cudoctor::snapshot {
namespace {

struct Required {
    const char* name;
    nlohmann::json::value_t type;
};

constexpr std::array kRequired = {
    Required{"tool_version", nlohmann::json::value_t::string}, Required{"root", nlohmann::json::value_t::string},
    Required{"gpus", nlohmann::json::value_t::array},          Required{"driver", nlohmann::json::value_t::object},
    Required{"toolkits", nlohmann::json::value_t::array},      Required{"environment", nlohmann::json::value_t::object},
    Required{"platform", nlohmann::json::value_t::object},
};

constexpr std::string_view kNotAMachine = "not a cudoctor machine snapshot (`cudoctor check --json` writes one): ";

}  // namespace

Expected<Snapshot> machine_from_json_text(std::string_view text) {
    auto snap = from_json_text(text);
    if (!snap) return snap;
    // from_json_text parsed it: an object with a schema number.
    const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (const auto kind = j.find("kind"); kind != j.end()) {
        if (kind->is_string() && kind->get<std::string>() == kMachineKind) return snap;
        return fail(Errc::parse, std::string(kNotAMachine) + "its \"kind\" is " + kind->dump());
    }
    if (j.contains("levels")) return fail(Errc::parse, std::string(kNotAMachine) + "it is a `cudoctor verify --json` report");
    for (const auto& r : kRequired) {
        const auto member = j.find(r.name);
        if (member == j.end()) return fail(Errc::parse, std::string(kNotAMachine) + "no \"" + r.name + "\"");
        if (member->type() != r.type)
            return fail(Errc::parse, std::string(kNotAMachine) + "\"" + r.name + "\" is a " + member->type_name());
    }
    return snap;
}

}  // namespace cudoctor::snapshot
