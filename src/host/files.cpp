#include "host/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cudoctor::host {
namespace {

Errc open_errc(int e) {
    switch (e) {
        case ENOENT:
        case ENOTDIR: return Errc::not_found;
        case EACCES:
        case EPERM: return Errc::permission;
        case ELOOP: return Errc::loop;
        default: return Errc::io;
    }
}

std::string folder_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

/// Writes all of `bytes`; false with errno set on failure.
bool write_all(int fd, std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = ENOSPC;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

/// Reads `fd` to its end, refusing more than `cap` bytes; errors name the file `name`.
Expected<std::string> read_to_end(int fd, const std::string& name, std::size_t cap) {
    std::string data;
    char buf[65536];
    while (true) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int e = errno;
            return fail(Errc::io, name + ": " + std::strerror(e));
        }
        if (n == 0) break;
        if (data.size() + static_cast<std::size_t>(n) > cap)  // it grew while we read, or a pipe ran on
            return fail(Errc::too_large, name + ": larger than " + size_limit_text(cap));
        data.append(buf, static_cast<std::size_t>(n));
    }
    return data;
}

}  // namespace

std::string size_limit_text(std::size_t cap) {
    if (cap >= (1u << 20) && cap % (1u << 20) == 0) return std::to_string(cap >> 20) + " MiB";
    return std::to_string(cap) + " bytes";
}

Expected<std::string> read_capped(const std::string& path, std::size_t cap) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        const int e = errno;
        return fail(open_errc(e), path + ": " + std::strerror(e));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return fail(Errc::io, path + ": not a regular file");
    }
    if (static_cast<std::uint64_t>(st.st_size) > cap) {
        ::close(fd);
        return fail(Errc::too_large, path + ": larger than " + size_limit_text(cap));
    }
    auto data = read_to_end(fd, path, cap);
    ::close(fd);
    return data;
}

Expected<std::string> read_capped_or_pipe(const std::string& path, std::size_t cap) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int e = errno;
        return fail(open_errc(e), path + ": " + std::strerror(e));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
        ::close(fd);
        return fail(Errc::io, path + ": not a regular file or pipe");
    }
    if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > cap) {
        ::close(fd);
        return fail(Errc::too_large, path + ": larger than " + size_limit_text(cap));
    }
    auto data = read_to_end(fd, path, cap);
    ::close(fd);
    return data;
}

Expected<std::string> read_capped_stdin(std::size_t cap) { return read_to_end(STDIN_FILENO, "standard input", cap); }

Expected<void> write_atomically(const std::string& path, std::string_view bytes, std::optional<mode_t> mode) {
    auto failed = [&](int e) { return fail(Errc::io, "cannot write " + path + ": " + std::strerror(e)); };
    // Beside the target (a rename never crosses filesystems); the pid keeps two writers apart.
    const std::string tmp = path + ".cudoctor-new." + std::to_string(::getpid());
    ::unlink(tmp.c_str());  // a leftover of a killed run with the same pid
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode.value_or(0644));
    if (fd < 0) return failed(errno);
    bool ok = write_all(fd, bytes);
    if (ok && mode) ok = ::fchmod(fd, *mode) == 0;
    if (ok) ok = ::fsync(fd) == 0;
    int e = errno;
    if (::close(fd) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        ::unlink(tmp.c_str());
        return failed(e);
    }
    // The rename itself is durable only once the folder is; some filesystems refuse: no matter.
    if (const int dir = ::open(folder_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return {};
}

}  // namespace cudoctor::host
