#include "formats/fatbin.hpp"

#include "formats/byte_reader.hpp"

namespace cudoctor::formats {
namespace {

constexpr std::uint64_t kContainerHeaderSize = 16;
constexpr std::uint64_t kEntryHeaderMin = 64;
// Real entry headers are 0x40-0x80 bytes (option strings included); far larger is corruption.
constexpr std::uint64_t kEntryHeaderMax = 64 * 1024;

constexpr std::uint64_t kFlagDebug = 0x2;
constexpr std::uint64_t kFlagLz4 = 0x2000;
constexpr std::uint64_t kFlagZstd = 0x8000;
constexpr std::uint64_t kFlagArchSpecific = 0x100000;
constexpr std::uint64_t kFlagFamilySpecific = 0x200000;

FatbinKind kind_of(std::uint16_t code) {
    switch (code) {
        case 1: return FatbinKind::ptx;
        case 2: return FatbinKind::sass;
        case 8: return FatbinKind::lto_ir;
        default: return FatbinKind::other;
    }
}

FatbinEntry read_entry(const ByteReader& in, std::uint64_t at, std::uint64_t base) {
    FatbinEntry e;
    e.kind_code = *in.u16(at);
    e.kind = kind_of(e.kind_code);
    e.header_size = *in.u32(at + 4);
    e.payload_size = *in.u64(at + 8);
    e.compressed_size = *in.u32(at + 0x10);
    e.version_minor = *in.u16(at + 0x18);
    e.version_major = *in.u16(at + 0x1a);
    e.arch = *in.u32(at + 0x1c);
    e.flags = *in.u64(at + 0x28);
    e.uncompressed_size = *in.u64(at + 0x38);
    e.debug = (e.flags & kFlagDebug) != 0;
    e.arch_specific = (e.flags & kFlagArchSpecific) != 0;
    e.family_specific = (e.flags & kFlagFamilySpecific) != 0;
    e.compression = (e.flags & kFlagZstd)  ? FatbinCompression::zstd
                    : (e.flags & kFlagLz4) ? FatbinCompression::lz4
                                           : FatbinCompression::none;
    e.offset = base + at;
    return e;
}

/// Reads the entries in [begin, end) of a container; an error names the first bad entry.
Expected<std::vector<FatbinEntry>> read_entries(const ByteReader& in, std::uint64_t begin, std::uint64_t end, std::uint64_t base) {
    std::vector<FatbinEntry> entries;
    std::uint64_t at = begin;
    while (at < end) {
        if (end - at < kEntryHeaderMin)
            return fail(Errc::parse, "fatbin entry at offset " + std::to_string(base + at) + ": " + std::to_string(end - at) +
                                         " bytes left in the container, less than an entry header (64)");
        const std::uint32_t header_size = *in.u32(at + 4);
        const std::uint64_t payload_size = *in.u64(at + 8);
        if (header_size < kEntryHeaderMin || header_size > kEntryHeaderMax)
            return fail(Errc::parse, "fatbin entry at offset " + std::to_string(base + at) + ": header size " +
                                         std::to_string(header_size) + " (expected 64 to 65536)");
        const auto next = checked_add(at + header_size, payload_size);
        if (!next || *next > end)
            return fail(Errc::parse, "fatbin entry at offset " + std::to_string(base + at) + ": payload size " +
                                         std::to_string(payload_size) + " runs past the end of its container");
        entries.push_back(read_entry(in, at, base));
        at = *next;
    }
    return entries;
}

Expected<FatbinContainer> parse_at(const ByteReader& in, std::uint64_t at, std::uint64_t base) {
    if (!in.contains(at, kContainerHeaderSize))
        return fail(Errc::truncated, "fatbin container at offset " + std::to_string(base + at) + ": " + std::to_string(in.size() - at) +
                                         " bytes, less than a container header (16)");
    if (*in.u32(at) != kFatbinMagic)
        return fail(Errc::parse, "no fatbin container at offset " + std::to_string(base + at) + " (magic is not 0xBA55ED50)");
    const std::uint16_t version = *in.u16(at + 4);
    const std::uint16_t header_size = *in.u16(at + 6);
    const std::uint64_t fat_size = *in.u64(at + 8);
    if (version != 1)
        return fail(Errc::parse,
                    "fatbin container at offset " + std::to_string(base + at) + ": version " + std::to_string(version) + " (expected 1)");
    if (header_size < kContainerHeaderSize)
        return fail(Errc::parse, "fatbin container at offset " + std::to_string(base + at) + ": header size " +
                                     std::to_string(header_size) + " (expected at least 16)");
    const auto end = checked_add(at + header_size, fat_size);
    if (!end || *end > in.size())
        return fail(Errc::truncated, "fatbin container at offset " + std::to_string(base + at) + ": size " + std::to_string(fat_size) +
                                         " runs past the end (" + std::to_string(in.size() - at) + " bytes left)");
    auto entries = read_entries(in, at + header_size, *end, base);
    if (!entries) return Unexpected<Error>(entries.error());
    return FatbinContainer{base + at, *end - at, std::move(*entries)};
}

}  // namespace

std::string target_name(const FatbinEntry& e) {
    std::string prefix;
    switch (e.kind) {
        case FatbinKind::ptx: prefix = "compute_"; break;
        case FatbinKind::sass: prefix = "sm_"; break;
        case FatbinKind::lto_ir: prefix = "lto_"; break;
        case FatbinKind::other: prefix = "kind" + std::to_string(e.kind_code) + "_"; break;
    }
    return prefix + std::to_string(e.arch) + (e.arch_specific ? "a" : "") + (e.family_specific ? "f" : "");
}

const char* to_string(FatbinCompression c) {
    switch (c) {
        case FatbinCompression::none: return "none";
        case FatbinCompression::lz4: return "LZ4";
        case FatbinCompression::zstd: return "zstd";
    }
    return "none";
}

Expected<FatbinContainer> parse_fatbin_container(std::string_view bytes, std::uint64_t base) {
    return parse_at(ByteReader(bytes), 0, base);
}

FatbinWalk walk_fatbin_section(std::string_view section, std::uint64_t base) {
    const ByteReader in(section);
    FatbinWalk walk;
    std::uint64_t at = 0;
    while (at < in.size()) {
        const auto word = in.u32(at);
        if (word && *word == 0) {  // padding between containers
            at += 8;
            continue;
        }
        if (!word) {  // fewer than 4 bytes left: padding when zero, else a cut-off container
            if (in.range(at, in.size() - at)->find_first_not_of('\0') != std::string_view::npos)
                walk.error = Error{Errc::truncated, "fatbin section ends inside a container header at offset " + std::to_string(base + at)};
            break;
        }
        auto container = parse_at(in, at, base);
        if (!container) {
            walk.error = container.error();
            break;
        }
        at += container->size;
        walk.containers.push_back(std::move(*container));
    }
    return walk;
}

std::vector<FatbinContainer> find_embedded_fatbins(std::string_view data, std::uint64_t base) {
    const ByteReader in(data);
    std::vector<FatbinContainer> found;
    std::uint64_t at = (8 - base % 8) % 8;
    while (in.contains(at, kContainerHeaderSize)) {
        if (*in.u32(at) != kFatbinMagic || *in.u16(at + 4) != 1 || *in.u16(at + 6) != kContainerHeaderSize) {
            at += 8;
            continue;
        }
        auto container = parse_at(in, at, base);
        if (!container || container->entries.empty()) {
            at += 8;
            continue;
        }
        at += (container->size + 7) / 8 * 8;
        found.push_back(std::move(*container));
    }
    return found;
}

}  // namespace cudoctor::formats
