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
    /// May be empty. Copies the bytes of elements [begin, end) into `to` (room for them) and
    /// says whether it could: the reader then reads those elements from `to`, not from the
    /// tensor's view (which it falls back to when this says false). For a pair's windows, this
    /// reads the tensor under test and `read_ref` the reference.
    std::function<bool(std::uint64_t begin, std::uint64_t end, char*to)> read, read_ref;
};

}  // namespace cudoctor::compare
