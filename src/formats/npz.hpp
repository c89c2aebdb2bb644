#pragma once
// NumPy's .npz: a zip archive of .npy members (np.savez stores them, np.savez_compressed deflates
// them). Read through the central directory, ZIP64 included (NumPy writes every member with
// force_zip64, and arrays past 4 GiB need it).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace cudoctor::formats {

struct ZipEntry {
    std::string name;          ///< as stored ("conv1.weight.npy")
    std::uint16_t method = 0;  ///< 0 stored, 8 deflated
    std::uint32_t crc32 = 0;
    std::uint64_t compressed_size = 0;
    std::uint64_t uncompressed_size = 0;
    std::uint64_t data_offset = 0;  ///< where the member's (compressed) bytes start in the archive
};

/// The members of the zip archive `bytes`, in central-directory order (the order they were
/// written). Every member's data range is checked to lie inside the archive. Errc::parse "not a
/// zip archive" without an end-of-central-directory record; Errc::truncated / Errc::parse for a
/// central directory or local header outside the archive, a bad signature, or a data range past
/// the end; Errc::unsupported for multi-disk and encrypted archives. The entry count declared by
/// the archive never sizes an allocation: entries are read until the directory's bytes end.
Expected<std::vector<ZipEntry>> read_zip_directory(std::string_view bytes);

/// A stored (method 0) member's bytes: a view into `bytes`, nothing copied. Errc::unsupported
/// for a compressed member; Errc::parse when the sizes disagree.
Expected<std::string_view> stored_member(std::string_view bytes, const ZipEntry& entry);

/// A deflated (method 8) member inflated with zlib, its CRC-32 checked. Errc::too_large when the
/// declared size exceeds `cap` or is more than deflate's maximal ratio (1032:1) of the compressed
/// size (so a forged size cannot make it allocate); Errc::parse for corrupt data, a length
/// different from the declared one, or a CRC mismatch; Errc::unsupported for other methods.
Expected<std::string> inflate_member(std::string_view bytes, const ZipEntry& entry, std::uint64_t cap);

}  // namespace cudoctor::formats
