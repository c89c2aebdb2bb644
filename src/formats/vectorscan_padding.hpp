#pragma once
// How the Vectorscan log engine (log_scan_vectorscan.cpp) keeps clear of a Vectorscan 5.4.9 bug, in one
// place, so the engine, its tests and bench/vectorscan_literal_repro.cpp use the same numbers.
//
// The bug: Debian's Vectorscan 5.4.9 (the only one Debian ships) misses a literal whose match
// ends a few bytes before the end of the buffer it scans, for some addresses of that end, whatever
// CPU features the database is compiled for. bench/vectorscan_literal_repro.cpp sweeps every
// distance from the end up to 160 bytes, literal positions near the start, all 64 alignments and
// two fillers, for sets of the first 1 to all of a catalog's literals (the built-in one, a
// catalog twice its size, a 7-row one) and 200 random sets of 2 to 16. On the bench machine
// (AVX-512), 68,345 of 713 million cases miss: literals ending 0 to 31 bytes before the end, in
// sets of 3 to 16 literals (the Teddy matcher's sizes; the fuzzer's case: 17 bytes, at 1,344 of
// 4,096 offsets), none ending further away, none in the catalogs' sets of 13 literals or more.
// That is the matcher's last, partial vector: at most 64 bytes.
//
// The way round it: Vectorscan never sees the real data end near the buffer's end. Every block is
// scanned with kScanPadding bytes of kPaddingByte after it. No literal contains that byte (a
// pattern's literal and regex are ASCII: LogScanner::create refuses anything else), so no literal
// match reaches into the padding, and every match of the data ends at least kScanPadding bytes
// before the end Vectorscan sees: four times the widest vector, eight times the furthest miss
// seen. With it the sweep misses nothing (713 million cases). A regex pre-filter match ending
// inside the padding is dropped: every place RE2 can match lies in the data, and its widened
// regex has a match ending there too.
#include <cstddef>

namespace cudoctor::formats::detail {

inline constexpr std::size_t kScanPadding = 256;
inline constexpr char kPaddingByte = '\xff';

}  // namespace cudoctor::formats::detail
