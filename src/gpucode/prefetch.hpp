#pragma once
// Cold-cache speed for header-only scans. Walking fatbin headers is a chain: each header says
// where the next one is, so on a cold page cache every header costs one synchronous disk read.
// The .nvFatBinSegment table lists where every registered container starts; from it the pages
// of all containers' first headers can be requested at once, then all second headers, and so
// on: one batch of parallel reads per entry depth instead of one read per header.
#include <cstdint>
#include <functional>
#include <string_view>

#include "formats/elf.hpp"

namespace cudoctor::gpucode {

/// Called with a file range the scan will read soon (the kernel may start reading it);
/// `sequential`: it will be read front to back (read-ahead pays), else just those pages.
using WillNeed = std::function<void(std::uint64_t offset, std::uint64_t length, bool sequential)>;

/// Requests, batch by batch, the pages holding the container and entry headers of the
/// registered fatbin containers that .nvFatBinSegment points at. Reads only headers (bounds-
/// checked; garbage pointers and sizes are ignored), never fails, and changes no result: the
/// walk that follows reads the same bytes, only sooner. Does nothing without the table.
void prefetch_registered_headers(std::string_view file, const formats::ElfFile& elf, const WillNeed& will_need);

}  // namespace cudoctor::gpucode
