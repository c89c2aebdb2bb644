#pragma once
// Reading a large tensor in windows, so that a comparison holds a few windows in memory, not both
// files: the reader says which elements it reads next (the caller starts reading them from disk)
// and which it is done with (the caller gives their pages back).
#include <cstdint>
#include <functional>

namespace cudoctor::compare {

struct ReadWindows {
    /// Bytes per window on the wider side, at most (rounded down to the reader's unit of work,
    /// at least one); 0: the whole tensor is one window.
    std::uint64_t bytes = 0;
    /// Elements [begin, end) are read next. May be empty (no call).
    std::function<void(std::uint64_t begin, std::uint64_t end)> ahead;
    /// Elements [begin, end) have been read and will not be read again. May be empty.
    std::function<void(std::uint64_t begin, std::uint64_t end)> done;
};

}  // namespace cudoctor::compare
