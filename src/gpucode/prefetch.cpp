#include "gpucode/prefetch.hpp"

#include <vector>

#include "formats/byte_reader.hpp"
#include "formats/fatbin.hpp"

namespace cudoctor::gpucode {
namespace {

constexpr std::uint32_t kWrapperMagic = 0x466243B1;  // __fatBinC_Wrapper_t.magic
constexpr std::uint64_t kWrapperSize = 24;
constexpr std::uint64_t kEntryHeader = 64;
constexpr std::uint64_t kPage = 4096;
constexpr int kMaxRounds = 256;

struct Header {
    std::uint64_t at;
    std::uint64_t container_end;  ///< 0 for a container header (its end is read from it)
};

/// File offset of a virtual address inside one of the registered sections, or 0.
std::uint64_t file_offset(const formats::ElfFile& elf, std::uint64_t va) {
    for (const auto& s : elf.sections) {
        if ((s.name != ".nv_fatbin" && s.name != "__nv_relfatbin") || !s.in_file()) continue;
        if (va >= s.addr && va - s.addr < s.size) return s.offset + (va - s.addr);
    }
    return 0;
}

}  // namespace

void prefetch_registered_headers(std::string_view file, const formats::ElfFile& elf, const WillNeed& will_need) {
    const auto* table = formats::find_section(elf, ".nvFatBinSegment");
    if (!table || elf.type == 1) return;  // a relocatable object holds 0 there (a relocation fills it)
    auto bytes = formats::section_bytes(file, *table);
    if (!bytes) return;
    const formats::ByteReader records(*bytes);
    const formats::ByteReader in(file);
    std::vector<Header> batch;
    for (std::uint64_t at = 0; at + kWrapperSize <= records.size(); at += kWrapperSize) {
        if (*records.u32(at) != kWrapperMagic) continue;
        if (const auto off = file_offset(elf, *records.u64(at + 8))) batch.push_back({off, 0});
    }
    for (int round = 0; round < kMaxRounds && !batch.empty(); ++round) {
        for (const auto& h : batch) {
            const std::uint64_t page = h.at / kPage * kPage;
            will_need(page, h.at + kEntryHeader + 16 - page, false);
        }
        std::vector<Header> next;
        next.reserve(batch.size());
        for (const auto& h : batch) {
            if (h.container_end == 0) {  // a container: its first entry follows its header
                const auto magic = in.u32(h.at);
                const auto header_size = in.u16(h.at + 6);
                const auto fat_size = in.u64(h.at + 8);
                if (!magic || *magic != formats::kFatbinMagic || !header_size || !fat_size) continue;
                const auto end = formats::checked_add(h.at + *header_size, *fat_size);
                if (end && *end <= in.size() && h.at + *header_size + kEntryHeader <= *end) next.push_back({h.at + *header_size, *end});
                continue;
            }
            const auto header_size = in.u32(h.at + 4);
            const auto payload_size = in.u64(h.at + 8);
            if (!header_size || !payload_size || *header_size < kEntryHeader) continue;
            const auto following = formats::checked_add(h.at + *header_size, *payload_size);
            if (following && *following + kEntryHeader <= h.container_end) next.push_back({*following, h.container_end});
        }
        batch = std::move(next);
    }
}

}  // namespace cudoctor::gpucode
