#include "formats/npz.hpp"

#include <algorithm>
#include <climits>

#include "formats/byte_reader.hpp"
#include "formats/opened_libraries.hpp"

namespace cudoctor::formats {
namespace {

constexpr std::uint32_t kEocd = 0x06054b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kZip64Eocd = 0x06064b50;
constexpr std::uint32_t kCentral = 0x02014b50;
constexpr std::uint32_t kLocal = 0x04034b50;
constexpr std::uint64_t kEocdSize = 22;
constexpr std::uint64_t kMaxComment = 0xffff;

Expected<std::uint64_t> find_eocd(const ByteReader& r) {
    if (r.size() < kEocdSize) return fail(Errc::parse, "not a zip archive (" + std::to_string(r.size()) + " bytes)");
    const std::uint64_t last = r.size() - kEocdSize;
    const std::uint64_t first = last > kMaxComment ? last - kMaxComment : 0;
    for (std::uint64_t at = last + 1; at-- > first;)
        if (r.u32(at) == kEocd) return at;
    return fail(Errc::parse, "not a zip archive (no end-of-central-directory record)");
}

struct Directory {
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

Expected<Directory> locate_directory(const ByteReader& r) {
    const auto eocd = find_eocd(r);
    if (!eocd) return Unexpected<Error>(eocd.error());
    const auto disk = r.u16(*eocd + 4), cd_disk = r.u16(*eocd + 6);
    const auto cd_size = r.u32(*eocd + 12), cd_offset = r.u32(*eocd + 16);
    if (!disk || !cd_disk || !cd_size || !cd_offset) return fail(Errc::truncated, "truncated end-of-central-directory record");
    if (*disk != 0 && *disk != 0xffff) return fail(Errc::unsupported, "multi-disk zip archives are not supported");
    Directory d{*cd_offset, *cd_size};
    if (*cd_size == 0xffffffff || *cd_offset == 0xffffffff || *eocd >= 20) {
        // ZIP64: a locator right before the record points at the 64-bit record.
        const std::uint64_t loc = *eocd >= 20 ? *eocd - 20 : 0;
        if (*eocd >= 20 && r.u32(loc) == kZip64Locator) {
            const auto z64 = r.u64(loc + 8);
            if (!z64 || r.u32(*z64) != kZip64Eocd) return fail(Errc::parse, "corrupt ZIP64 end-of-central-directory locator");
            const auto size = r.u64(*z64 + 40), offset = r.u64(*z64 + 48);
            if (!size || !offset) return fail(Errc::truncated, "truncated ZIP64 end-of-central-directory record");
            d = {*offset, *size};
        } else if (*cd_size == 0xffffffff || *cd_offset == 0xffffffff) {
            return fail(Errc::parse, "ZIP64 archive without its end-of-central-directory locator");
        }
    }
    if (!r.contains(d.offset, d.size))
        return fail(Errc::truncated, "central directory [" + std::to_string(d.offset) + ", +" + std::to_string(d.size) +
                                         "] past the end of the archive (" + std::to_string(r.size()) + " bytes)");
    return d;
}

/// Applies the ZIP64 extended-information extra field: each 32-bit field that reads 0xffffffff
/// is replaced, in order, by the next 64-bit value.
bool apply_zip64_extra(std::string_view extra, bool need_usize, bool need_csize, bool need_offset, ZipEntry& e) {
    const ByteReader x(extra);
    for (std::uint64_t at = 0; x.contains(at, 4);) {
        const auto id = *x.u16(at), len = *x.u16(at + 2);
        if (!x.contains(at + 4, len)) return false;
        if (id == 0x0001) {
            std::uint64_t p = at + 4;
            const auto next = [&](std::uint64_t& out) {
                const auto v = x.u64(p);
                if (!v || p + 8 > at + 4 + len) return false;
                out = *v;
                p += 8;
                return true;
            };
            if (need_usize && !next(e.uncompressed_size)) return false;
            if (need_csize && !next(e.compressed_size)) return false;
            if (need_offset && !next(e.data_offset)) return false;
            return true;
        }
        at += 4 + len;
    }
    return !need_usize && !need_csize && !need_offset;
}

}  // namespace

Expected<std::vector<ZipEntry>> read_zip_directory(std::string_view bytes) {
    const ByteReader r(bytes);
    const auto dir = locate_directory(r);
    if (!dir) return Unexpected<Error>(dir.error());
    std::vector<ZipEntry> entries;
    const std::uint64_t end = dir->offset + dir->size;
    for (std::uint64_t at = dir->offset; at + 46 <= end;) {
        if (r.u32(at) != kCentral)
            return fail(Errc::parse, "corrupt zip central directory (bad signature at byte " + std::to_string(at) + ")");
        ZipEntry e;
        const auto flags = *r.u16(at + 8);
        e.method = *r.u16(at + 10);
        e.crc32 = *r.u32(at + 16);
        const std::uint32_t csize = *r.u32(at + 20), usize = *r.u32(at + 24);
        const std::uint16_t name_len = *r.u16(at + 28), extra_len = *r.u16(at + 30), comment_len = *r.u16(at + 32);
        const std::uint32_t local = *r.u32(at + 42);
        const auto name = r.range(at + 46, name_len);
        const auto extra = r.range(at + 46 + name_len, extra_len);
        if (!name || !extra || at + 46 + name_len + extra_len + comment_len > end)
            return fail(Errc::truncated, "zip central directory entry past the end of the directory");
        e.name = std::string(*name);
        if (flags & 1) return fail(Errc::unsupported, "zip member '" + e.name + "' is encrypted");
        e.compressed_size = csize;
        e.uncompressed_size = usize;
        e.data_offset = local;
        if (!apply_zip64_extra(*extra, usize == 0xffffffff, csize == 0xffffffff, local == 0xffffffff, e))
            return fail(Errc::parse, "zip member '" + e.name + "': corrupt ZIP64 extra field");
        // The local header repeats the name and has its own extra field: the data follow both.
        const std::uint64_t lh = e.data_offset;
        if (r.u32(lh) != kLocal) return fail(Errc::parse, "zip member '" + e.name + "': no local header at byte " + std::to_string(lh));
        const auto lname = r.u16(lh + 26), lextra = r.u16(lh + 28);
        if (!lname || !lextra) return fail(Errc::truncated, "zip member '" + e.name + "': truncated local header");
        e.data_offset = lh + 30 + *lname + *lextra;
        if (!r.contains(e.data_offset, e.compressed_size))
            return fail(Errc::truncated, "zip member '" + e.name + "': " + std::to_string(e.compressed_size) + " bytes at " +
                                             std::to_string(e.data_offset) + " past the end of the archive (" + std::to_string(r.size()) +
                                             " bytes)");
        entries.push_back(std::move(e));
        at += 46 + name_len + extra_len + comment_len;
    }
    return entries;
}

Expected<std::string_view> stored_member(std::string_view bytes, const ZipEntry& entry) {
    if (entry.method != 0) return fail(Errc::unsupported, "zip member '" + entry.name + "' is compressed");
    if (entry.compressed_size != entry.uncompressed_size)
        return fail(Errc::parse, "zip member '" + entry.name + "' is stored but its sizes differ");
    const auto range = ByteReader(bytes).range(entry.data_offset, entry.compressed_size);
    if (!range) return fail(Errc::truncated, "zip member '" + entry.name + "' past the end of the archive");
    return *range;
}

Expected<std::string> inflate_member(std::string_view bytes, const ZipEntry& entry, std::uint64_t cap) {
    if (entry.method != 8)
        return fail(Errc::unsupported, "zip member '" + entry.name + "' uses compression method " + std::to_string(entry.method) +
                                           " (only stored and deflated are read)");
    const auto in = ByteReader(bytes).range(entry.data_offset, entry.compressed_size);
    if (!in) return fail(Errc::truncated, "zip member '" + entry.name + "' past the end of the archive");
    const std::uint64_t usize = entry.uncompressed_size;
    if (usize > cap)
        return fail(Errc::too_large, "zip member '" + entry.name + "' inflates to " + std::to_string(usize) + " bytes, over the limit of " +
                                         std::to_string(cap));
    if (usize / 1032 > entry.compressed_size + 1)
        return fail(Errc::too_large, "zip member '" + entry.name + "' claims " + std::to_string(usize) + " bytes from " +
                                         std::to_string(entry.compressed_size) + " compressed: more than deflate can encode");
    // The output grows with what inflate really produces (from 64 MiB, doubling), never to a
    // declared size up front: a forged size costs nothing until the data back it.
    const auto& zlib = formats::libz();
    if (!zlib.error.empty()) return fail(Errc::io, "zip member '" + entry.name + "' cannot be inflated: " + zlib.error);
    std::string out(static_cast<std::size_t>(std::min<std::uint64_t>(usize, 64u << 20)), '\0');
    z_stream z{};
    if (zlib.inflate_init2(&z, -MAX_WBITS) != Z_OK) return fail(Errc::io, "zlib: cannot start inflating");
    std::uint64_t in_at = 0;
    int rc = Z_OK;
    while (rc == Z_OK) {
        // zlib counts in 32-bit: feed and drain at most 1 GiB at a time.
        if (z.avail_in == 0 && in_at < in->size()) {
            const auto n = std::min<std::uint64_t>(in->size() - in_at, 1u << 30);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in->data() + in_at));
            z.avail_in = static_cast<uInt>(n);
            in_at += n;
        }
        if (z.avail_out == 0) {
            const std::uint64_t done = z.total_out;
            if (done == out.size() && out.size() < usize)
                out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(usize, 2 * out.size())));
            z.next_out = reinterpret_cast<Bytef*>(out.data() + done);
            z.avail_out = static_cast<uInt>(std::min<std::uint64_t>(out.size() - done, 1u << 30));
        }
        const uInt before_in = z.avail_in, before_out = z.avail_out;
        rc = zlib.inflate(&z, Z_NO_FLUSH);
        if (rc == Z_BUF_ERROR || (rc == Z_OK && z.avail_in == before_in && z.avail_out == before_out))
            break;  // stuck: input ended or output full
    }
    const std::uint64_t produced = z.total_out;
    zlib.inflate_end(&z);
    if (rc != Z_STREAM_END) {
        if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) return fail(Errc::parse, "zip member '" + entry.name + "': corrupt deflate data");
        return fail(Errc::parse,
                    "zip member '" + entry.name + "': deflate data do not end at the declared size (" + std::to_string(usize) + " bytes)");
    }
    if (produced != usize)
        return fail(Errc::parse, "zip member '" + entry.name + "' inflates to " + std::to_string(produced) + " bytes, not the declared " +
                                     std::to_string(usize));
    uLong crc = zlib.crc32(0L, Z_NULL, 0);
    for (std::uint64_t at = 0; at < produced;) {
        const auto n = std::min<std::uint64_t>(produced - at, 1u << 30);
        crc = zlib.crc32(crc, reinterpret_cast<const Bytef*>(out.data() + at), static_cast<uInt>(n));
        at += n;
    }
    if (crc != entry.crc32) return fail(Errc::parse, "zip member '" + entry.name + "': CRC-32 mismatch (corrupt data)");
    return out;
}

}  // namespace cudoctor::formats
