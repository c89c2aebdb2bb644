#include "formats/fatbin_payload.hpp"

#include <climits>

#include "formats/byte_reader.hpp"
#include "formats/opened_libraries.hpp"

namespace cudoctor::formats {
namespace {

std::string where(const FatbinEntry& e) { return "fatbin entry at offset " + std::to_string(e.offset) + " (" + target_name(e) + ")"; }

}  // namespace

Expected<std::string_view> entry_payload(std::string_view file, const FatbinEntry& entry) {
    const auto start = checked_add(entry.offset, entry.header_size);
    std::uint64_t length = entry.payload_size;
    if (entry.compression != FatbinCompression::none) {
        if (entry.compressed_size == 0 || entry.compressed_size > entry.payload_size)
            return fail(Errc::parse, where(entry) + ": compressed size " + std::to_string(entry.compressed_size) + " (stored payload " +
                                         std::to_string(entry.payload_size) + " bytes)");
        length = entry.compressed_size;
    }
    const ByteReader in(file);
    if (start)
        if (auto bytes = in.range(*start, length)) return *bytes;
    return fail(Errc::truncated, where(entry) + ": payload runs past the end of the file");
}

Expected<std::uint64_t> decompress_entry(std::string_view compressed, const FatbinEntry& entry, std::string& out, std::uint64_t cap) {
    if (entry.compression == FatbinCompression::none) return fail(Errc::parse, where(entry) + ": not compressed");
    const std::uint64_t size = entry.uncompressed_size;
    if (size > cap)
        return fail(Errc::too_large,
                    where(entry) + ": uncompressed size " + std::to_string(size) + " bytes is over the cap of " + std::to_string(cap));
    if (size == 0) return fail(Errc::parse, where(entry) + ": compressed, but its uncompressed size is 0");
    if (entry.compression == FatbinCompression::lz4) {
        const auto& lz4 = formats::liblz4();
        if (!lz4.error.empty()) return fail(Errc::io, where(entry) + ": cannot decompress LZ4: " + lz4.error);
        if (compressed.size() > INT_MAX || size > INT_MAX) return fail(Errc::too_large, where(entry) + ": too large for LZ4");
        out.resize(static_cast<std::size_t>(size));
        const int n = lz4.decompress_safe(compressed.data(), out.data(), static_cast<int>(compressed.size()), static_cast<int>(size));
        if (n < 0) return fail(Errc::parse, where(entry) + ": corrupt LZ4 data");
        if (static_cast<std::uint64_t>(n) != size)
            return fail(Errc::parse, where(entry) + ": LZ4 data decompresses to " + std::to_string(n) + " bytes, the header says " +
                                         std::to_string(size));
        return size;
    }
    // zstd: the frame may name its content size; it must agree with the header before a byte
    // is written (a hostile frame cannot make us write more than `size` in any case).
    const auto& zstd = formats::libzstd();
    if (!zstd.error.empty()) return fail(Errc::io, where(entry) + ": cannot decompress zstd: " + zstd.error);
    const unsigned long long framed = zstd.get_frame_content_size(compressed.data(), compressed.size());
    if (framed == ZSTD_CONTENTSIZE_ERROR) return fail(Errc::parse, where(entry) + ": not a zstd frame");
    if (framed != ZSTD_CONTENTSIZE_UNKNOWN && framed != size)
        return fail(Errc::parse,
                    where(entry) + ": zstd frame holds " + std::to_string(framed) + " bytes, the header says " + std::to_string(size));
    out.resize(static_cast<std::size_t>(size));
    const std::size_t n = zstd.decompress(out.data(), out.size(), compressed.data(), compressed.size());
    if (zstd.is_error(n)) return fail(Errc::parse, where(entry) + ": corrupt zstd data (" + zstd.get_error_name(n) + ")");
    if (n != size)
        return fail(Errc::parse,
                    where(entry) + ": zstd data decompresses to " + std::to_string(n) + " bytes, the header says " + std::to_string(size));
    return size;
}

}  // namespace cudoctor::formats
