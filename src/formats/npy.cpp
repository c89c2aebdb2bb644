#include "formats/npy.hpp"

#include <cctype>
#include <optional>
#include <string>

#include "formats/byte_reader.hpp"

namespace cudoctor::formats {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

/// A cursor over the header dict: just the literals NumPy writes (strings, True/False, tuples
/// of integers).
class HeaderReader {
  public:
    explicit HeaderReader(std::string_view s) : m_s(s) {}

    void skip_space() {
        while (m_at < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_at]))) ++m_at;
    }
    bool eat(char c) {
        skip_space();
        if (m_at < m_s.size() && m_s[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }
    bool at_end() {
        skip_space();
        return m_at >= m_s.size();
    }
    std::optional<std::string> string() {
        skip_space();
        if (m_at >= m_s.size() || (m_s[m_at] != '\'' && m_s[m_at] != '"')) return std::nullopt;
        const char quote = m_s[m_at++];
        const auto end = m_s.find(quote, m_at);
        if (end == std::string_view::npos) return std::nullopt;
        std::string v(m_s.substr(m_at, end - m_at));
        m_at = end + 1;
        return v;
    }
    std::optional<bool> boolean() {
        skip_space();
        for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
            if (m_s.substr(m_at, word.size()) == word) {
                m_at += word.size();
                return value;
            }
        return std::nullopt;
    }
    std::optional<std::uint64_t> integer() {
        skip_space();
        std::uint64_t v = 0;
        const std::size_t start = m_at;
        while (m_at < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_at]))) {
            auto next = checked_mul(v, 10);
            if (next) next = checked_add(*next, static_cast<std::uint64_t>(m_s[m_at] - '0'));
            if (!next) return std::nullopt;
            v = *next;
            ++m_at;
        }
        if (m_at < m_s.size() && m_s[m_at] == 'L') ++m_at;  // Python 2 wrote 3L
        if (m_at == start) return std::nullopt;
        return v;
    }
    /// "(2, 3)", "(3,)" or "()".
    std::optional<std::vector<std::uint64_t>> tuple() {
        if (!eat('(')) return std::nullopt;
        std::vector<std::uint64_t> dims;
        if (eat(')')) return dims;
        while (true) {
            const auto v = integer();
            if (!v || dims.size() >= 64) return std::nullopt;
            dims.push_back(*v);
            const bool comma = eat(',');
            if (eat(')')) return dims;
            if (!comma) return std::nullopt;
        }
    }
    /// Skips a value of a key this reader does not need.
    bool skip_value() {
        if (string() || boolean() || integer() || tuple()) return true;
        return false;
    }

  private:
    std::string_view m_s;
    std::size_t m_at = 0;
};

Expected<DType> dtype_of_descr(const std::string& descr) {
    if (descr.size() < 3) return fail(Errc::unsupported, "unsupported element type '" + descr + "'");
    const char order = descr[0];
    const std::string_view type = std::string_view(descr).substr(1);
    if (order == '>' && type != "i1" && type != "u1" && type != "b1")
        return fail(Errc::unsupported,
                    "big-endian arrays ('" + descr + "') are not supported: save with .astype('<" + std::string(type) + "')");
    if (order != '<' && order != '|' && order != '=' && order != '>')
        return fail(Errc::unsupported, "unsupported element type '" + descr + "'");
    static constexpr std::pair<std::string_view, DType> kTypes[] = {
        {"f8", DType::f64}, {"f4", DType::f32}, {"f2", DType::f16}, {"i1", DType::i8},  {"i2", DType::i16}, {"i4", DType::i32},
        {"i8", DType::i64}, {"u1", DType::u8},  {"u2", DType::u16}, {"u4", DType::u32}, {"u8", DType::u64}, {"b1", DType::boolean},
    };
    for (const auto& [code, dtype] : kTypes)
        if (type == code) return dtype;
    return fail(Errc::unsupported,
                "unsupported element type '" + descr + "' (complex, string, datetime and structured arrays are not tensors)");
}

}  // namespace

bool looks_like_npy(std::string_view bytes) { return bytes.starts_with(kMagic); }

Expected<TensorView> parse_npy(std::string_view bytes) {
    if (!looks_like_npy(bytes)) return fail(Errc::parse, "not a .npy file (no \\x93NUMPY magic)");
    const ByteReader reader(bytes);
    const auto major = reader.range(6, 1);
    if (!major) return fail(Errc::truncated, "truncated .npy header (" + std::to_string(bytes.size()) + " bytes)");
    const int version = static_cast<unsigned char>((*major)[0]);
    if (version < 1 || version > 3) return fail(Errc::unsupported, ".npy format version " + std::to_string(version) + " is not known");
    std::uint64_t header_len = 0;
    std::uint64_t header_at = 0;
    if (version == 1) {
        const auto len = reader.u16(8);
        if (!len) return fail(Errc::truncated, "truncated .npy header (" + std::to_string(bytes.size()) + " bytes)");
        header_len = *len;
        header_at = 10;
    } else {
        const auto len = reader.u32(8);
        if (!len) return fail(Errc::truncated, "truncated .npy header (" + std::to_string(bytes.size()) + " bytes)");
        header_len = *len;
        header_at = 12;
    }
    const auto header = reader.range(header_at, header_len);
    if (!header)
        return fail(Errc::truncated,
                    "header length " + std::to_string(header_len) + " past the end (" + std::to_string(bytes.size()) + " bytes)");

    HeaderReader h(*header);
    std::optional<std::string> descr;
    std::optional<bool> fortran;
    std::optional<std::vector<std::uint64_t>> shape;
    const auto bad = [] { return fail(Errc::parse, "the .npy header is not the dict NumPy writes"); };
    if (!h.eat('{')) return bad();
    while (!h.eat('}')) {  // "{}" and "{'a': 1, }" (NumPy's trailing comma) both end here
        const auto key = h.string();
        if (!key || !h.eat(':')) return bad();
        if (*key == "descr") {
            descr = h.string();
            if (!descr) return fail(Errc::unsupported, "structured arrays (a list as 'descr') are not supported");
        } else if (*key == "fortran_order") {
            fortran = h.boolean();
            if (!fortran) return bad();
        } else if (*key == "shape") {
            shape = h.tuple();
            if (!shape) return fail(Errc::parse, "the .npy header's shape is not a tuple of non-negative integers");
        } else if (!h.skip_value()) {
            return bad();
        }
        if (h.eat(',')) continue;
        if (h.eat('}')) break;
        return bad();
    }
    if (!descr || !fortran || !shape) return fail(Errc::parse, "the .npy header lacks 'descr', 'fortran_order' or 'shape'");
    if (!h.at_end()) return bad();
    const auto dtype = dtype_of_descr(*descr);
    if (!dtype) return Unexpected<Error>(dtype.error());
    std::uint64_t nontrivial = 0;
    for (auto d : *shape) nontrivial += d > 1;
    if (*fortran && nontrivial > 1)
        return fail(Errc::unsupported, "Fortran-ordered arrays are not supported: save with np.ascontiguousarray()");

    TensorView t;
    t.dtype = *dtype;
    t.shape = std::move(*shape);
    const std::uint64_t data_at = header_at + header_len;
    const auto need = byte_count(t.dtype, t.shape);
    const std::uint64_t have = bytes.size() - data_at;
    if (!need || *need > have)
        return fail(Errc::truncated, "shape " + shape_text(t.shape) + " of " + *descr + " needs " +
                                         (need ? std::to_string(*need) : std::string("more than 2^64")) + " bytes, the file holds " +
                                         std::to_string(have));
    if (*need < have)
        return fail(Errc::parse, "shape " + shape_text(t.shape) + " of " + *descr + " needs " + std::to_string(*need) +
                                     " bytes, the file holds " + std::to_string(have) + " (" + std::to_string(have - *need) + " left over)");
    t.data = bytes.substr(static_cast<std::size_t>(data_at));
    return t;
}

}  // namespace cudoctor::formats
