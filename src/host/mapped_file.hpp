#pragma once
// A file of the machine mapped read-only into memory, so the binary readers can look at any
// range while the kernel reads only the pages they touch (random access advised: no
// read-ahead pulls in the payloads between headers).
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "host/host.hpp"

namespace cudoctor::host {

class MappedFile {
  public:
    /// Maps the machine path `path` (resolved inside the Host's root; links followed there).
    /// Errc::not_found, Errc::loop, Errc::permission as the Host's reads; Errc::io "not a regular
    /// file" for folders, FIFOs and devices (never opened for reading, so nothing can hang).
    /// An empty file maps to an empty view.
    /// A file of at least `keep_descriptor_from` bytes keeps its descriptor open for read_at()
    /// (a few large dumps, never a folder of thousands of small files holding as many).
    static Expected<MappedFile> open(const host::Host& host, std::string_view path, std::uint64_t keep_descriptor_from = UINT64_MAX);

    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    /// The whole file as a view; reading a range pages in just that range.
    std::string_view bytes() const { return {static_cast<const char*>(m_data), static_cast<std::size_t>(m_size)}; }
    std::uint64_t size() const { return m_size; }
    /// Starts reading [offset, offset + length) into the page cache without waiting
    /// (MADV_WILLNEED); `sequential` (the whole range is about to be read front to back)
    /// queues it window by window, so a long range is read in parallel. Ranges are clipped to
    /// the file; errors are ignored (a hint only).
    void will_need(std::uint64_t offset, std::uint64_t length, bool sequential) const;
    /// Gives back the pages that lie wholly inside [offset, offset + length) (MADV_DONTNEED),
    /// the last page of the file included: they leave this process's memory, the data stay in
    /// the page cache, and reading them again maps them again (the mapping is read-only, so
    /// nothing is lost). Ranges are clipped to the file; errors are ignored (memory only).
    void release(std::uint64_t offset, std::uint64_t length) const;
    /// Copies bytes [offset, offset + length) of the file into `to` with pread(2): from the
    /// page cache, as cat reads, without mapping a page (no page faults, and nothing to give
    /// back). False, with nothing promised in `to`, when the descriptor was not kept, the range
    /// is past the end, or the read fails; the mapping still holds the bytes.
    bool read_at(std::uint64_t offset, std::uint64_t length, char* to) const;
    /// Whether the descriptor was kept (read_at() can read).
    bool readable() const { return m_fd >= 0; }
    /// The canonical machine path the file was found at.
    const std::string& path() const { return m_path; }

  private:
    MappedFile(void* data, std::uint64_t size, std::string path, int fd = -1)
        : m_data(data), m_size(size), m_fd(fd), m_path(std::move(path)) {}
    void* m_data = nullptr;
    std::uint64_t m_size = 0;
    int m_fd = -1;  ///< kept open for read_at(), or -1
    std::string m_path;
};

}  // namespace cudoctor::host
