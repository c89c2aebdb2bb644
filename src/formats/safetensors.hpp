#pragma once
// The safetensors format (Hugging Face): an 8-byte little-endian header length N, N bytes of
// JSON {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, …,
// "__metadata__": {…}}, then the data; offsets count from the end of the header.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "formats/tensor_view.hpp"

namespace cudoctor::formats {

/// The reference implementation refuses headers past 100 MB; so does this reader.
inline constexpr std::uint64_t kSafetensorsMaxHeader = 100'000'000;

struct SafetensorsFile {
    std::vector<TensorView> tensors;              ///< in the order the header lists them
    std::map<std::string, std::string> metadata;  ///< "__metadata__" (string values only)
};

/// Reads a whole safetensors file held in `bytes`; each tensor's data is a view into `bytes`.
/// Errc::truncated "header length N past the end of the file (M bytes)" (also when the file is
/// shorter than the 8-byte length); Errc::too_large for a header over 100 MB; Errc::parse for
/// a header that is not a JSON object, an entry without a known dtype / a shape of
/// non-negative integers / two data_offsets, offsets outside the data ("tensor 'x': data
/// offsets [a, b] outside the data (n bytes)"), begin > end, and a shape whose element count
/// × dtype size differs from end − begin. Nothing is allocated from a declared size: the
/// header is parsed only after its length was checked against the file.
Expected<SafetensorsFile> parse_safetensors(std::string_view bytes);

}  // namespace cudoctor::formats
