#include "formats/safetensors.hpp"

#include <nlohmann/json.hpp>

#include "formats/byte_reader.hpp"

namespace cudoctor::formats {
namespace {

using Json = nlohmann::ordered_json;  // keeps the header's order: the order tensors were written

std::string quote_name(std::string_view name) {
    std::string s = "'";
    for (char c : name.substr(0, 200)) s += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    if (name.size() > 200) s += "…";
    return s + "'";
}

/// A JSON number that is a non-negative integer (12, not 12.5, -1 or "12").
std::optional<std::uint64_t> unsigned_value(const Json& v) {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
    return std::nullopt;
}

Expected<TensorView> read_entry(const std::string& name, const Json& entry, std::string_view data) {
    const std::string what = "tensor " + quote_name(name);
    if (!entry.is_object()) return fail(Errc::parse, what + ": not a JSON object");
    const auto dt = entry.find("dtype");
    if (dt == entry.end() || !dt->is_string()) return fail(Errc::parse, what + ": no dtype");
    const auto dtype = dtype_from_name(dt->get_ref<const std::string&>());
    if (!dtype) return fail(Errc::parse, what + ": unknown dtype " + quote_name(dt->get_ref<const std::string&>()));
    const auto sh = entry.find("shape");
    if (sh == entry.end() || !sh->is_array()) return fail(Errc::parse, what + ": no shape");
    TensorView t;
    t.name = name;
    t.dtype = *dtype;
    for (const auto& d : *sh) {
        const auto v = unsigned_value(d);
        if (!v) return fail(Errc::parse, what + ": shape " + sh->dump() + " is not a list of non-negative integers");
        t.shape.push_back(*v);
    }
    const auto off = entry.find("data_offsets");
    if (off == entry.end() || !off->is_array() || off->size() != 2) return fail(Errc::parse, what + ": no data_offsets [begin, end]");
    const auto begin = unsigned_value((*off)[0]);
    const auto end = unsigned_value((*off)[1]);
    if (!begin || !end) return fail(Errc::parse, what + ": data_offsets " + off->dump() + " are not non-negative integers");
    if (*begin > *end)
        return fail(Errc::parse,
                    what + ": data_offsets [" + std::to_string(*begin) + ", " + std::to_string(*end) + "] end before they begin");
    const ByteReader reader(data);
    const auto range = reader.range(*begin, *end - *begin);
    if (!range)
        return fail(Errc::parse, what + ": data offsets [" + std::to_string(*begin) + ", " + std::to_string(*end) + "] outside the data (" +
                                     std::to_string(data.size()) + " bytes)");
    const auto need = byte_count(t.dtype, t.shape);
    if (!need || *need != range->size())
        return fail(Errc::parse, what + ": shape " + shape_text(t.shape) + " of " + std::string(dtype_name(t.dtype)) + " needs " +
                                     (need ? std::to_string(*need) : std::string("more than 2^64")) + " bytes, the offsets hold " +
                                     std::to_string(range->size()));
    t.data = *range;
    return t;
}

}  // namespace

Expected<SafetensorsFile> parse_safetensors(std::string_view bytes) {
    const ByteReader reader(bytes);
    const auto header_len = reader.u64(0);
    if (!header_len)
        return fail(Errc::truncated,
                    "not a safetensors file: " + std::to_string(bytes.size()) + " bytes, shorter than the 8-byte header length");
    if (*header_len > bytes.size() - 8)
        return fail(Errc::truncated, "header length " + std::to_string(*header_len) + " past the end of the file (" +
                                         std::to_string(bytes.size()) + " bytes)");
    if (*header_len > kSafetensorsMaxHeader)
        return fail(Errc::too_large, "header length " + std::to_string(*header_len) + " over the 100 MB limit of the format");
    const std::string_view header = bytes.substr(8, static_cast<std::size_t>(*header_len));
    if (header.empty() || header.front() != '{') return fail(Errc::parse, "not a safetensors file: the header is not a JSON object");
    const Json json = Json::parse(header.begin(), header.end(), nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) return fail(Errc::parse, "not a safetensors file: the header is not valid JSON");

    const std::string_view data = bytes.substr(8 + static_cast<std::size_t>(*header_len));
    SafetensorsFile file;
    for (const auto& [name, entry] : json.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object()) return fail(Errc::parse, "__metadata__ is not a JSON object");
            for (const auto& [k, v] : entry.items())
                if (v.is_string()) file.metadata[k] = v.get<std::string>();
            continue;
        }
        auto t = read_entry(name, entry, data);
        if (!t) return Unexpected<Error>(t.error());
        file.tensors.push_back(std::move(*t));
    }
    return file;
}

}  // namespace cudoctor::formats
