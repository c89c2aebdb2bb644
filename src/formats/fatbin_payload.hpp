#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "formats/fatbin.hpp"

/// The payload of one fatbin entry: where its bytes lie, and the decompression of compressed
/// entries (LZ4 blocks and zstd frames, as nvcc's --compress-mode writes them).
namespace cudoctor::formats {

/// No entry is decompressed past this many bytes (the largest cubins of CUDA 13's libraries
/// are a few MB; a header asking for more is corrupt or hostile).
inline constexpr std::uint64_t kMaxEntryUncompressed = 256ull << 20;

/// The bytes stored for `entry` (header_size + offset, payload_size long) inside `file`, whose
/// offset 0 is the entry.offset origin; for a compressed entry, only its compressed_size bytes.
/// Errc::truncated "fatbin entry at offset …: payload runs past the end of the file" when they
/// do not lie inside; Errc::parse when a compressed entry's compressed size is 0 or larger
/// than its stored payload.
Expected<std::string_view> entry_payload(std::string_view file, const FatbinEntry& entry);

/// Decompresses `compressed` (an entry's payload as entry_payload() gives it) into `out`
/// (replaced; its buffer reused), exactly entry.uncompressed_size bytes, and answers that size.
/// Errors, one line:
/// Errc::too_large when the header's uncompressed size exceeds `cap`; Errc::parse "… LZ4 …" /
/// "… zstd …" when the data does not decompress, or decompresses to another size than the
/// header says; Errc::parse for an entry that is not compressed.
[[nodiscard]] Expected<std::uint64_t> decompress_entry(std::string_view compressed, const FatbinEntry& entry, std::string& out,
                                                       std::uint64_t cap = kMaxEntryUncompressed);

}  // namespace cudoctor::formats
