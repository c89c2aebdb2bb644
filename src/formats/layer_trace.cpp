#include "formats/layer_trace.hpp"

#include <cmath>
#include <set>

#include "formats/json_text.hpp"

namespace cudoctor::formats {

using Json = nlohmann::json;

const char* to_string(OpKind kind) {
    switch (kind) {
        case OpKind::aten: return "aten";
        case OpKind::prim: return "prim";
        case OpKind::custom: return "custom";
        case OpKind::autograd_function: return "autograd.Function";
    }
    return "?";
}

const LayerRecord* LayerTrace::find(std::string_view name) const {
    for (const auto& l : layers)
        if (l.name == name) return &l;
    return nullptr;
}

namespace {

std::optional<OpKind> op_kind(std::string_view text) {
    for (const auto k : {OpKind::aten, OpKind::prim, OpKind::custom, OpKind::autograd_function})
        if (text == to_string(k)) return k;
    return std::nullopt;
}

/// Reads the members of one JSON object, each checked for its type; the first mistake is kept
/// with its place ("layers[3]: 'ops' is not a list").
class Reader {
  public:
    Reader(const Json& obj, std::string where) : m_obj(obj), m_where(std::move(where)) {}

    const Json* member(const char* key, bool (Json::*is)() const, const char* what, bool required) {
        const auto it = m_obj.find(key);
        if (it == m_obj.end() || it->is_null()) {
            if (required) note(std::string("'") + key + "' is missing");
            return nullptr;
        }
        if (!((*it).*is)()) {
            note(std::string("'") + key + "' is not " + what);
            return nullptr;
        }
        return &*it;
    }
    std::string text(const char* key, bool required = false) {
        const Json* j = member(key, &Json::is_string, "a string", required);
        return j ? j->get<std::string>() : std::string();
    }
    std::uint64_t count(const char* key) {
        const Json* j = member(key, &Json::is_number_unsigned, "a count", false);
        return j ? j->get<std::uint64_t>() : 0;
    }
    std::vector<std::string> strings(const char* key) {
        std::vector<std::string> out;
        if (const Json* j = member(key, &Json::is_array, "a list", false))
            for (const auto& v : *j) {
                if (!v.is_string()) return note(std::string("'") + key + "' holds a non-string"), out;
                out.push_back(v.get<std::string>());
            }
        return out;
    }
    void note(const std::string& what) {
        if (m_error.empty()) m_error = m_where.empty() ? what : m_where + ": " + what;
    }
    const std::string& error() const { return m_error; }

  private:
    const Json& m_obj;
    std::string m_where;
    std::string m_error;
};

Expected<OpUse> read_op(const Json& j, const std::string& where) {
    if (!j.is_object()) return fail(Errc::parse, where + " is not an object");
    Reader r(j, where);
    OpUse op;
    op.name = r.text("op", true);
    const std::string kind = r.text("kind", true);
    op.count = r.count("count");
    op.devices = r.strings("devices");
    if (!r.error().empty()) return fail(Errc::parse, r.error());
    const auto k = op_kind(kind);
    if (!k) return fail(Errc::parse, where + ": unknown operator kind '" + kind + "' (aten, prim, custom or autograd.Function)");
    op.kind = *k;
    return op;
}

Expected<LayerRecord> read_layer(const Json& j, const std::string& where) {
    if (!j.is_object()) return fail(Errc::parse, where + " is not an object");
    Reader r(j, where);
    LayerRecord layer;
    layer.name = r.text("name", true);
    layer.module = r.text("module");
    layer.type = r.text("type");
    layer.devices = r.strings("devices");
    layer.tensors = r.strings("tensors");
    if (const Json* t = r.member("time_ms", &Json::is_number, "a number", false)) {
        const double ms = t->get<double>();
        if (!(ms >= 0) || !std::isfinite(ms)) return fail(Errc::parse, where + ": time_ms " + t->dump() + " is not a time");
        layer.time_ms = ms;
    }
    const Json* ops = r.member("ops", &Json::is_array, "a list", false);
    if (!r.error().empty()) return fail(Errc::parse, r.error());
    if (ops)
        for (std::size_t i = 0; i < ops->size(); ++i) {
            auto op = read_op((*ops)[i], where + ".ops[" + std::to_string(i) + "]");
            if (!op) return Unexpected<Error>(op.error());
            layer.ops.push_back(std::move(*op));
        }
    return layer;
}

}  // namespace

Expected<LayerTrace> parse_layer_trace(std::string_view text) {
    auto doc = detail::parse_json_object(text);
    if (!doc) return Unexpected<Error>(doc.error());
    const Json& j = *doc;
    LayerTrace trace;
    const auto schema = j.find("schema");
    if (schema == j.end() || !schema->is_number_integer()) return fail(Errc::parse, "not a layer trace: no 'schema' number");
    if (schema->get<std::int64_t>() != 1)
        return fail(Errc::parse, "layer trace schema " + schema->dump() + ": this cudoctor reads schema 1");
    Reader r(j, "");
    trace.torch = r.text("torch");
    trace.device = r.text("device");
    trace.dtype = r.text("dtype");
    if (const Json* timing = r.member("timing", &Json::is_object, "an object", false)) {
        Reader t(*timing, "timing");
        trace.clock = t.text("clock", true);
        trace.warmup = static_cast<unsigned>(std::min<std::uint64_t>(t.count("warmup"), 1u << 30));
        trace.repeat = static_cast<unsigned>(std::min<std::uint64_t>(t.count("repeat"), 1u << 30));
        if (!t.error().empty()) return fail(Errc::parse, t.error());
    }
    if (const Json* gate = r.member("gate", &Json::is_object, "an object", false)) {
        Reader g(*gate, "gate");
        const Json* passed = g.member("passed", &Json::is_boolean, "true or false", true);
        trace.gate_passed = passed ? passed->get<bool>() : true;
        trace.gate_layer = g.text("layer", !trace.gate_passed);
        trace.gate_nan = g.count("nan");
        trace.gate_inf = g.count("inf");
        if (!g.error().empty()) return fail(Errc::parse, g.error());
    }
    const Json* layers = r.member("layers", &Json::is_array, "a list", true);
    if (!r.error().empty()) return fail(Errc::parse, r.error());
    std::set<std::string> names;
    for (std::size_t i = 0; i < layers->size(); ++i) {
        const std::string where = "layers[" + std::to_string(i) + "]";
        auto layer = read_layer((*layers)[i], where);
        if (!layer) return Unexpected<Error>(layer.error());
        if (!names.insert(layer->name).second) return fail(Errc::parse, where + ": a second layer named '" + layer->name + "'");
        trace.layers.push_back(std::move(*layer));
    }
    return trace;
}

std::optional<Expected<LayerTrace>> layer_trace_in_metadata(const std::map<std::string, std::string>& metadata) {
    const auto it = metadata.find(std::string(kLayerTraceKey));
    if (it == metadata.end()) return std::nullopt;
    auto trace = parse_layer_trace(it->second);
    if (!trace)
        return Expected<LayerTrace>(fail(Errc::parse, "__metadata__[\"" + std::string(kLayerTraceKey) + "\"]: " + trace.error().message));
    return Expected<LayerTrace>(std::move(*trace));
}

}  // namespace cudoctor::formats
