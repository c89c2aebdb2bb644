#pragma once
// NumPy's .npy format: "\x93NUMPY", version (1.0, 2.0 or 3.0), a little-endian header length
// (2 bytes in 1.0, 4 after), a Python dict literal {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), } padded with spaces, then the array's bytes.
#include <string_view>

#include "common/error.hpp"
#include "formats/tensor_view.hpp"

namespace cudoctor::formats {

/// True when `bytes` starts with the .npy magic.
bool looks_like_npy(std::string_view bytes);

/// Reads one .npy held in `bytes` (a file, or a member of an .npz); the tensor's data is a view
/// into `bytes` and its name is left empty. Errc::parse "not a .npy file" without the magic;
/// Errc::truncated for a header length past the end ("header length N past the end (M bytes)")
/// and for data shorter than shape × dtype; Errc::parse for a header that is not the dict
/// NumPy writes, and for bytes left over after the data; Errc::unsupported for big-endian,
/// Fortran-ordered, structured and object arrays, and element types the dumps do not carry
/// (complex, strings, datetimes) — each named in the message.
Expected<TensorView> parse_npy(std::string_view bytes);

}  // namespace cudoctor::formats
