#include "host/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace cudoctor::host {
namespace {

Unexpected<Error> os_error(int err, std::string_view path) {
    const Errc code = err == ENOENT || err == ENOTDIR ? Errc::not_found
                      : err == EACCES || err == EPERM ? Errc::permission
                      : err == ELOOP                  ? Errc::loop
                                                      : Errc::io;
    return fail(code, std::string(path) + ": " + std::strerror(err));
}

}  // namespace

Expected<MappedFile> MappedFile::open(const host::Host& host, std::string_view path, std::uint64_t keep_descriptor_from) {
    auto real = host.resolve(path);
    if (!real) return Unexpected<Error>(real.error());
    const std::string local = host.host_path(*real);
    struct stat st {};
    if (::stat(local.c_str(), &st) != 0) return os_error(errno, path);
    if (!S_ISREG(st.st_mode)) return fail(Errc::io, std::string(path) + ": not a regular file");
    const int fd = ::open(local.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return os_error(errno, path);
    // The size of the open file, not of the path: it may have been replaced in between.
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const int err = errno;
        ::close(fd);
        return os_error(err ? err : EINVAL, path);
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size == 0) {
        ::close(fd);
        return MappedFile(nullptr, 0, std::move(*real));
    }
    void* data = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    const bool keep = data != MAP_FAILED && size >= keep_descriptor_from;
    if (!keep) ::close(fd);
    if (data == MAP_FAILED) return os_error(err, path);
    // Headers are scattered through hundreds of MB: read-ahead would pull the payloads in.
    ::madvise(data, static_cast<std::size_t>(size), MADV_RANDOM);
    return MappedFile(data, size, std::move(*real), keep ? fd : -1);
}

bool MappedFile::read_at(std::uint64_t offset, std::uint64_t length, char* to) const {
    if (m_fd < 0 || offset > m_size || length > m_size - offset) return false;
    while (length > 0) {
        const ssize_t n =
            ::pread(m_fd, to, static_cast<std::size_t>(std::min<std::uint64_t>(length, std::uint64_t{1} << 30)), static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;  // an error, or the file shrank under us
        to += n;
        offset += static_cast<std::uint64_t>(n);
        length -= static_cast<std::uint64_t>(n);
    }
    return true;
}

void MappedFile::will_need(std::uint64_t offset, std::uint64_t length, bool sequential) const {
    if (!m_data || offset >= m_size) return;
    static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t start = offset / page * page;
    const std::uint64_t end = length > m_size - offset ? m_size : offset + length;
    if (!sequential) {
        ::madvise(static_cast<char*>(m_data) + start, static_cast<std::size_t>(end - start), MADV_WILLNEED);
        return;
    }
    // The kernel reads at most one read-ahead window (128 KiB by default) per MADV_WILLNEED and
    // does not wait for it: asking window by window queues the whole range at once, in parallel,
    // where page faults alone would read it one window at a time.
    constexpr std::uint64_t kWindow = 128 * 1024;
    for (std::uint64_t at = start; at < end; at += kWindow)
        ::madvise(static_cast<char*>(m_data) + at, static_cast<std::size_t>(std::min(kWindow, end - at)), MADV_WILLNEED);
}

void MappedFile::release(std::uint64_t offset, std::uint64_t length) const {
    if (!m_data || offset >= m_size) return;
    static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t end = length > m_size - offset ? m_size : offset + length;
    // Pages shared with bytes outside the range stay: someone may be reading them.
    const std::uint64_t start = (offset + page - 1) / page * page;
    const std::uint64_t stop = end == m_size ? (end + page - 1) / page * page : end / page * page;
    if (stop > start) ::madvise(static_cast<char*>(m_data) + start, static_cast<std::size_t>(stop - start), MADV_DONTNEED);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)),
      m_fd(std::exchange(other.m_fd, -1)),
      m_path(std::move(other.m_path)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        if (m_data) ::munmap(m_data, static_cast<std::size_t>(m_size));
        if (m_fd >= 0) ::close(m_fd);
        m_data = std::exchange(other.m_data, nullptr);
        m_size = std::exchange(other.m_size, 0);
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
    }
    return *this;
}

MappedFile::~MappedFile() {
    if (m_data) ::munmap(m_data, static_cast<std::size_t>(m_size));
    if (m_fd >= 0) ::close(m_fd);
}

}  // namespace cudoctor::host
