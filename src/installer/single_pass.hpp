#pragma once
// One read of a file feeding every check: digests and decompression checks are ByteSinks, each
// on its own thread, all fed the same chunks in file order by one reader.
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace cudoctor::installer {

/// Something that reads a file's bytes in order during the pass.
class ByteSink {
  public:
    virtual ~ByteSink() = default;
    /// Bytes [offset, offset + bytes.size()) of the file; called in file order, from one thread.
    virtual void consume(std::uint64_t offset, std::string_view bytes) = 0;
    /// Called once after the last chunk: `end` is the number of bytes the pass read.
    virtual void finish(std::uint64_t end) = 0;
};

/// A sink that only looks at bytes [begin, end) of the file (end nullopt: to the end of file).
class RangeSink : public ByteSink {
  public:
    RangeSink(std::uint64_t begin, std::optional<std::uint64_t> end) : m_begin(begin), m_end(end) {}
    void consume(std::uint64_t offset, std::string_view bytes) final;
    void finish(std::uint64_t end) final;

  protected:
    /// The next bytes of the range, in order.
    virtual void on_bytes(std::string_view bytes) = 0;
    /// The range is over: `complete` is false when the file ended before the range did.
    virtual void on_end(bool complete) = 0;
    std::uint64_t seen() const { return m_seen; }

  private:
    std::uint64_t m_begin;
    std::optional<std::uint64_t> m_end;
    std::uint64_t m_seen = 0;
};

/// Called by the reader after each chunk: bytes read so far and the file's size.
using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;

struct PassResult {
    std::uint64_t bytes_read = 0;
    double seconds = 0;
    std::optional<Error> error;  ///< a read error (the sinks then saw a shorter file)
};

/// Reads the open file `fd` (of `size` bytes) once from byte 0 to its end, handing every chunk to
/// every sink (one thread per sink; chunks are shared, at most 64 MiB in flight). A read error
/// ends the pass early and is returned in `error`; sinks still get finish(). `progress` may be
/// empty.
PassResult run_single_pass(int fd, std::uint64_t size, const std::vector<ByteSink*>& sinks, const ProgressFn& progress);

}  // namespace cudoctor::installer
