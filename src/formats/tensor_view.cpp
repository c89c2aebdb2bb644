#include "formats/tensor_view.hpp"

#include <array>

#include "formats/byte_reader.hpp"

namespace cudoctor::formats {
namespace {

struct DTypeInfo {
    DType type;
    std::string_view name;
    std::size_t size;
};

constexpr std::array<DTypeInfo, 15> kTypes{{
    {DType::f64, "F64", 8},
    {DType::f32, "F32", 4},
    {DType::f16, "F16", 2},
    {DType::bf16, "BF16", 2},
    {DType::f8_e4m3, "F8_E4M3", 1},
    {DType::f8_e5m2, "F8_E5M2", 1},
    {DType::i8, "I8", 1},
    {DType::i16, "I16", 2},
    {DType::i32, "I32", 4},
    {DType::i64, "I64", 8},
    {DType::u8, "U8", 1},
    {DType::u16, "U16", 2},
    {DType::u32, "U32", 4},
    {DType::u64, "U64", 8},
    {DType::boolean, "BOOL", 1},
}};

const DTypeInfo& info(DType t) { return kTypes[static_cast<std::size_t>(t)]; }

}  // namespace

std::size_t dtype_size(DType t) { return info(t).size; }
std::string_view dtype_name(DType t) { return info(t).name; }

std::optional<DType> dtype_from_name(std::string_view name) {
    for (const auto& i : kTypes)
        if (i.name == name) return i.type;
    return std::nullopt;
}

bool is_floating(DType t) {
    switch (t) {
        case DType::f64:
        case DType::f32:
        case DType::f16:
        case DType::bf16:
        case DType::f8_e4m3:
        case DType::f8_e5m2: return true;
        default: return false;
    }
}

std::uint64_t TensorView::numel() const {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;  // the readers checked the product against the byte count
    return n;
}

std::optional<std::uint64_t> byte_count(DType t, const std::vector<std::uint64_t>& shape) {
    std::uint64_t n = dtype_size(t);
    for (auto d : shape)
        if (d == 0) return 0;  // [0, 2^40, 2^40] holds nothing: no overflow to report
    for (auto d : shape) {
        auto p = checked_mul(n, d);
        if (!p) return std::nullopt;
        n = *p;
    }
    return n;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    return s + "]";
}

}  // namespace cudoctor::formats
