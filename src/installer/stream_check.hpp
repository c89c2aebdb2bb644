#pragma once
// The compressed stream inside an installer (a makeself payload, a .tar.xz, a .deb member)
// decompressed to its end and its trailer (gzip CRC-32 + length, xz block checks + index,
// zstd frame end), output discarded: the check the installer would only fail deep inside.
#include <memory>
#include <string>

#include "formats/makeself.hpp"
#include "installer/single_pass.hpp"

namespace cudoctor::installer {

enum class StreamStatus {
    ok,           ///< the stream ended cleanly where the range ends
    corrupt,      ///< the decompressor rejected the data (detail says how, at which byte)
    ended_early,  ///< the bytes ran out before the stream's end
    trailing,     ///< the stream ended cleanly but bytes follow it inside the range
    unchecked,    ///< no decompressor for this compression (bzip2, "other")
};

/// "ok", "corrupt", "ended-early", "trailing-data", "unchecked".
const char* to_string(StreamStatus s);

struct StreamResult {
    StreamStatus status = StreamStatus::unchecked;
    std::string detail;              ///< the decompressor's words, with the byte offset
    std::uint64_t compressed = 0;    ///< bytes of the range consumed by the stream
    std::uint64_t uncompressed = 0;  ///< bytes it decompressed to (so far, when it failed)
    std::uint64_t error_offset = 0;  ///< file offset near which a corrupt stream failed
};

/// Decompresses bytes [begin, end) of the file as `compression` (gzip, xz, zstd; concatenated
/// streams accepted as gzip/xz/zstd tools do). Never throws on bad data: the result says what
/// happened. `threads` > 1 lets liblzma decode a multi-block xz stream in parallel.
class StreamCheckSink final : public RangeSink {
  public:
    StreamCheckSink(formats::PayloadCompression compression, std::uint64_t begin, std::optional<std::uint64_t> end, unsigned threads = 1);
    ~StreamCheckSink() override;
    const StreamResult& result() const { return m_result; }
    formats::PayloadCompression compression() const { return m_compression; }

  private:
    void on_bytes(std::string_view bytes) override;
    void on_end(bool complete) override;

    struct Decoder;
    formats::PayloadCompression m_compression;
    std::uint64_t m_begin;
    std::unique_ptr<Decoder> m_decoder;
    StreamResult m_result;
};

}  // namespace cudoctor::installer
