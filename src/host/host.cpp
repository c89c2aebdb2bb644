#include "host/host.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>

#include "common/text.hpp"

extern char** environ;

namespace cudoctor::host {
namespace {

constexpr int kMaxLinkHops = 40;  // the kernel's own limit (MAXSYMLINKS)

Error errno_error(int err, std::string_view what) {
    Errc code = Errc::io;
    if (err == ENOENT || err == ENOTDIR) code = Errc::not_found;
    else if (err == EACCES || err == EPERM) code = Errc::permission;
    else if (err == ELOOP) code = Errc::loop;
    return Error{code, std::string(what) + ": " + std::strerror(err)};
}

FileInfo to_info(const struct stat& st) {
    FileInfo info;
    if (S_ISREG(st.st_mode)) info.type = FileType::regular;
    else if (S_ISDIR(st.st_mode)) info.type = FileType::directory;
    else if (S_ISLNK(st.st_mode)) info.type = FileType::symlink;
    info.size = static_cast<std::uint64_t>(st.st_size);
    info.executable = S_ISREG(st.st_mode) && (st.st_mode & 0111);
    info.mtime = st.st_mtim.tv_sec;
    return info;
}

void push_components(std::deque<std::string>& pending, std::string_view path) {
    auto parts = text::split(path, '/');
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (!it->empty() && *it != ".") pending.emplace_front(*it);
    }
}

}  // namespace

std::map<std::string, std::string> parse_environ(std::string_view block) {
    std::map<std::string, std::string> env;
    std::size_t start = 0;
    while (start < block.size()) {
        auto end = block.find_first_of(std::string_view("\0\n", 2), start);
        if (end == std::string_view::npos) end = block.size();
        auto entry = block.substr(start, end - start);
        if (!entry.empty() && entry.back() == '\r') entry.remove_suffix(1);
        if (auto eq = entry.find('='); eq != std::string_view::npos && eq > 0)
            env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
        start = end + 1;
    }
    return env;
}

std::string join(std::string_view a, std::string_view b) {
    if (b.starts_with('/')) b.remove_prefix(1);
    std::string out(a);
    if (out.empty() || out.back() != '/') out += '/';
    out += b;
    return out;
}

std::string dirname(std::string_view path) {
    auto pos = path.find_last_of('/');
    if (pos == std::string_view::npos) return ".";
    if (pos == 0) return "/";
    return std::string(path.substr(0, pos));
}

std::string basename(std::string_view path) {
    auto pos = path.find_last_of('/');
    return std::string(pos == std::string_view::npos ? path : path.substr(pos + 1));
}

Host Host::real() {
    std::map<std::string, std::string> env;
    for (char** e = environ; e && *e; ++e) {
        std::string_view entry(*e);
        if (auto eq = entry.find('='); eq != std::string_view::npos && eq > 0)
            env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
    }
    return Host("/", std::move(env));
}

Expected<Host> Host::rooted(const std::string& root_dir) {
    char buf[PATH_MAX];
    if (!::realpath(root_dir.c_str(), buf)) return Unexpected<Error>(errno_error(errno, "root folder " + root_dir));
    struct stat st {};
    if (::stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) return fail(Errc::not_found, "root folder " + root_dir + " is not a folder");
    std::string root(buf);
    Host host(root, {});
    if (root != "/") {
        if (auto block = host.read_file("/proc/self/environ", 1u << 20)) host.m_env = parse_environ(*block);
    } else {
        host = real();
    }
    return host;
}

Error Host::in_image(Error e) const {
    if (is_rooted()) e.message += " (inside the image " + m_root + ")";
    return e;
}

std::string Host::host_path(std::string_view machine_path) const {
    if (m_root == "/") return machine_path.starts_with('/') ? std::string(machine_path) : join("/", machine_path);
    return join(m_root, machine_path);
}

Expected<std::string> Host::resolve_impl(std::string_view path, bool follow_last) const {
    std::deque<std::string> pending;
    push_components(pending, path);
    std::vector<std::string> done;
    int hops = 0;
    auto current = [&] {
        std::string p;
        for (const auto& c : done) p += "/" + c;
        return p.empty() ? std::string("/") : p;
    };
    while (!pending.empty()) {
        std::string part = std::move(pending.front());
        pending.pop_front();
        if (part == "..") {
            if (!done.empty()) done.pop_back();
            continue;
        }
        done.push_back(part);
        if (pending.empty() && !follow_last) break;
        const std::string machine = current();
        struct stat st {};
        if (::lstat(host_path(machine).c_str(), &st) != 0) return Unexpected<Error>(errno_error(errno, machine));
        if (!S_ISLNK(st.st_mode)) {
            if (!pending.empty() && !S_ISDIR(st.st_mode)) return fail(Errc::not_found, machine + ": not a folder");
            continue;
        }
        if (++hops > kMaxLinkHops) return fail(Errc::loop, std::string(path) + ": symbolic link loop");
        char target[PATH_MAX];
        const auto n = ::readlink(host_path(machine).c_str(), target, sizeof target - 1);
        if (n < 0) return Unexpected<Error>(errno_error(errno, machine));
        std::string_view t(target, static_cast<std::size_t>(n));
        done.pop_back();
        if (t.starts_with('/')) done.clear();
        push_components(pending, t);
    }
    return current();
}

Expected<std::string> Host::resolve(std::string_view path) const { return resolve_impl(path, true); }
Expected<std::string> Host::resolve_parent(std::string_view path) const { return resolve_impl(path, false); }

/// Opens a machine path for reading if it is a regular file: folders, FIFOs and devices are
/// refused before open(2), so a FIFO cannot block the probe.
Expected<int> Host::open_regular(std::string_view path) const {
    auto real = resolve(path);
    if (!real) return Unexpected<Error>(real.error());
    const std::string hp = host_path(*real);
    struct stat st {};
    if (::stat(hp.c_str(), &st) != 0) return Unexpected<Error>(errno_error(errno, std::string(path)));
    if (!S_ISREG(st.st_mode)) return fail(Errc::io, std::string(path) + ": not a regular file");
    const int fd = ::open(hp.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return Unexpected<Error>(errno_error(errno, std::string(path)));
    return fd;
}

Expected<std::string> Host::read_file(std::string_view path, std::size_t cap) const {
    auto fd = open_regular(path);
    if (!fd) return Unexpected<Error>(fd.error());
    std::string data;
    char buf[65536];
    while (true) {
        const auto n = ::read(*fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(*fd);
            return Unexpected<Error>(errno_error(err, std::string(path)));
        }
        if (n == 0) break;
        if (data.size() + static_cast<std::size_t>(n) > cap) {
            ::close(*fd);
            return fail(Errc::too_large, std::string(path) + ": larger than " + std::to_string(cap) + " bytes");
        }
        data.append(buf, static_cast<std::size_t>(n));
    }
    ::close(*fd);
    return data;
}

Expected<std::string> Host::read_head(std::string_view path, std::size_t max) const {
    auto fd = open_regular(path);
    if (!fd) return Unexpected<Error>(fd.error());
    std::string data(max, '\0');
    std::size_t got = 0;
    while (got < max) {
        const auto n = ::read(*fd, data.data() + got, max - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(*fd);
    data.resize(got);
    return data;
}

Expected<FileInfo> Host::stat(std::string_view path) const {
    auto real = resolve(path);
    if (!real) return Unexpected<Error>(real.error());
    struct stat st {};
    if (::stat(host_path(*real).c_str(), &st) != 0) return Unexpected<Error>(errno_error(errno, std::string(path)));
    return to_info(st);
}

Expected<FileInfo> Host::lstat(std::string_view path) const {
    auto real = resolve_parent(path);
    if (!real) return Unexpected<Error>(real.error());
    struct stat st {};
    if (::lstat(host_path(*real).c_str(), &st) != 0) return Unexpected<Error>(errno_error(errno, std::string(path)));
    return to_info(st);
}

Expected<std::string> Host::read_link(std::string_view path) const {
    auto real = resolve_parent(path);
    if (!real) return Unexpected<Error>(real.error());
    char target[PATH_MAX];
    const auto n = ::readlink(host_path(*real).c_str(), target, sizeof target - 1);
    if (n < 0) {
        if (errno == EINVAL) return fail(Errc::parse, std::string(path) + ": not a symbolic link");
        return Unexpected<Error>(errno_error(errno, std::string(path)));
    }
    return std::string(target, static_cast<std::size_t>(n));
}

Expected<std::vector<std::string>> Host::list_dir(std::string_view path) const {
    auto real = resolve(path);
    if (!real) return Unexpected<Error>(real.error());
    DIR* dir = ::opendir(host_path(*real).c_str());
    if (!dir) return Unexpected<Error>(errno_error(errno, std::string(path)));
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(dir)) {
        std::string_view name(e->d_name);
        if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

bool Host::is_dir(std::string_view path) const {
    auto info = stat(path);
    return info && info->type == FileType::directory;
}

bool Host::is_file(std::string_view path) const {
    auto info = stat(path);
    return info && info->type == FileType::regular;
}

bool Host::is_executable_file(std::string_view path) const {
    auto info = stat(path);
    return info && info->type == FileType::regular && info->executable;
}

std::vector<std::string> Host::glob(std::string_view dir, std::string_view pattern) const {
    std::vector<std::string> out;
    auto names = list_dir(dir);
    if (!names) return out;
    const std::string pat(pattern);
    for (const auto& name : *names) {
        if (::fnmatch(pat.c_str(), name.c_str(), 0) == 0) out.push_back(join(dir, name));
    }
    return out;
}

std::optional<std::string> Host::env(std::string_view key) const {
    auto it = m_env.find(std::string(key));
    if (it == m_env.end()) return std::nullopt;
    return it->second;
}

}  // namespace cudoctor::host
