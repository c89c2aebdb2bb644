#pragma once
// One tensor inside a dump file (safetensors, npy, npz): its element type, its shape and a view of
// its bytes (row-major, little-endian) inside the file. The readers never copy element data.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudoctor::formats {

/// Element types the tensor dumps carry (safetensors spells them F32, BF16, …; NumPy '<f4', …).
enum class DType : std::uint8_t {
    f64,
    f32,
    f16,
    bf16,
    f8_e4m3,
    f8_e5m2,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    boolean,
};

/// Bytes per element.
std::size_t dtype_size(DType t);
/// safetensors' spelling: "F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "I8".."U64", "BOOL".
std::string_view dtype_name(DType t);
/// The DType for safetensors' spelling; nullopt for anything else (case-sensitive, as written).
std::optional<DType> dtype_from_name(std::string_view name);
/// True for the floating-point types (F64 … F8).
bool is_floating(DType t);

/// A tensor: name, element type, shape and its bytes (exactly numel × dtype_size bytes).
struct TensorView {
    std::string name;
    DType dtype = DType::f32;
    std::vector<std::uint64_t> shape;  ///< empty for a scalar (one element)
    std::string_view data;

    /// Product of the shape (1 for a scalar).
    std::uint64_t numel() const;
};

/// numel × dtype_size of `shape`, or nullopt when the product overflows 64 bits.
std::optional<std::uint64_t> byte_count(DType t, const std::vector<std::uint64_t>& shape);

/// "[2, 3, 4]" (or "[]" for a scalar).
std::string shape_text(const std::vector<std::uint64_t>& shape);

}  // namespace cudoctor::formats
