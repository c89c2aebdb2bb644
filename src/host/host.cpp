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
#include <unordered_map>

#include "common/text.hpp"
#include "common/worker.hpp"

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

/// The longest run of plain characters that every name matching the fnmatch(3) `pattern`
/// (flags 0) contains: a run between wildcards before any '[' or '\\' (after those, what is
/// literal depends on the bracket's or escape's end). "" when there is none.
std::string_view required_literal(std::string_view pattern) {
    std::string_view best;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= pattern.size(); ++i) {
        const char c = i < pattern.size() ? pattern[i] : '*';
        if (c != '*' && c != '?' && c != '[' && c != '\\') continue;
        if (i - start > best.size()) best = pattern.substr(start, i - start);
        if (c == '[' || c == '\\') break;
        start = i + 1;
    }
    return best;
}

/// Sorts folder entry names as std::sort would (byte order), comparing first the first eight
/// bytes as one number: a folder of thousands of "lib…" names spends its time in memcmp calls.
void sort_names(std::vector<std::string>& names) {
    // Sorted as (first sixteen bytes, index), the names moved once at the end: sorting the
    // strings themselves moved 32-byte strings at every swap (2.3 M of check's instructions for
    // its ~4,000 listed names).
    struct Keyed {
        std::uint64_t high;  // bytes 0-7
        std::uint64_t low;   // bytes 8-15
        std::uint32_t index;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(names.size());
    for (std::size_t n = 0; n < names.size(); ++n) {
        const std::string& name = names[n];
        std::uint64_t high = 0;
        std::uint64_t low = 0;
        for (std::size_t i = 0; i < 8; ++i) high = (high << 8) | (i < name.size() ? static_cast<unsigned char>(name[i]) : 0u);
        for (std::size_t i = 8; i < 16; ++i) low = (low << 8) | (i < name.size() ? static_cast<unsigned char>(name[i]) : 0u);
        keyed.push_back({high, low, static_cast<std::uint32_t>(n)});
    }
    // Names hold no NUL byte, so the zero padding of a short name sorts it before any longer
    // name it begins: the key order is the byte order of the first sixteen bytes ("libnvidia-…"
    // share eight), and only names alike that far are compared whole.
    std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
        if (a.high != b.high) return a.high < b.high;
        if (a.low != b.low) return a.low < b.low;
        return names[a.index] < names[b.index];
    });
    std::vector<std::string> sorted;
    sorted.reserve(names.size());
    for (const auto& k : keyed) sorted.push_back(std::move(names[k.index]));
    names.swap(sorted);
}

void push_components(std::deque<std::string>& pending, std::string_view path) {
    auto parts = text::split(path, '/');
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (!it->empty() && *it != ".") pending.emplace_front(*it);
    }
}

}  // namespace

namespace detail {

/// A folder's entry names (no "." or ".."), sorted; errno_code 0 when it could be opened.
struct Listing {
    int errno_code = 0;
    std::vector<std::string> names;
};

/// Reads the folder at `host_path` (a path on this computer): nothing of the Host is touched,
/// so it may run on another thread.
Listing read_folder(const std::string& host_path) {
    Listing out;
    DIR* dir = ::opendir(host_path.c_str());
    if (!dir) {
        out.errno_code = errno;
        return out;
    }
    while (const dirent* e = ::readdir(dir)) {
        std::string_view name(e->d_name);
        if (name != "." && name != "..") out.names.emplace_back(name);
    }
    ::closedir(dir);
    sort_names(out.names);
    return out;
}

}  // namespace detail

/// What one CacheScope remembers, by machine path: lstat(2)s (with the errno of a failed one)
/// and the target of each link, folder listings (by canonical path), resolved paths.
struct Host::RunCache {
    struct Entry {
        struct stat st {};
        int lstat_errno = 0;  ///< lstat(2)'s errno when it failed (st is then unset)
        int link_errno = 0;   ///< readlink(2)'s errno for a link whose target could not be read
        std::string target;   ///< a link's raw target
    };
    std::unordered_map<std::string, Entry> lstats;
    std::unordered_map<std::string, std::vector<std::string>> listings;
    /// Listings being read on a worker (list_ahead), by resolved path: moved to `listings` at
    /// their first use.
    std::unordered_map<std::string, Pending<detail::Listing>> ahead;
    /// Resolved paths by 'F' (links followed) or 'P' (last one not) and the path as asked.
    std::unordered_map<std::string, std::string> resolved;
};

Host::CacheScope::CacheScope(const Host& host) {
    if (host.m_cache.cache) return;  // an outer guard owns it
    host.m_cache.cache = std::make_shared<RunCache>();
    m_host = &host;
}

Host::CacheScope::~CacheScope() {
    if (m_host) m_host->m_cache.cache.reset();
}

bool Host::lstat_machine(const std::string& machine, struct stat& st) const {
    RunCache* cache = m_cache.cache.get();
    if (cache) {
        if (auto it = cache->lstats.find(machine); it != cache->lstats.end()) {
            if (it->second.lstat_errno != 0) {
                errno = it->second.lstat_errno;
                return false;
            }
            st = it->second.st;
            return true;
        }
    }
    if (::lstat(host_path(machine).c_str(), &st) != 0) {
        // Missing paths are asked for again and again (each conda root, nvcc in each PATH folder).
        const int err = errno;
        if (cache) cache->lstats.emplace(machine, RunCache::Entry{{}, err, 0, {}});
        errno = err;
        return false;
    }
    if (cache) cache->lstats.emplace(machine, RunCache::Entry{st, 0, 0, {}});
    return true;
}

bool Host::stat_resolved(const std::string& real, struct stat& st) const {
    if (RunCache* cache = m_cache.cache.get()) {
        // A resolved path's last component is no link (resolve() followed it), and the lstat of
        // what is no link is its stat.
        if (auto it = cache->lstats.find(real); it != cache->lstats.end() && it->second.lstat_errno == 0 && !S_ISLNK(it->second.st.st_mode)) {
            st = it->second.st;
            return true;
        }
    }
    return ::stat(host_path(real).c_str(), &st) == 0;
}

const std::vector<std::string>* Host::cached_listing(const std::string& real) const {
    RunCache* cache = m_cache.cache.get();
    if (!cache) return nullptr;
    if (auto it = cache->listings.find(real); it != cache->listings.end()) return &it->second;
    auto pending = cache->ahead.find(real);
    if (pending == cache->ahead.end()) return nullptr;
    detail::Listing listed = pending->second.get();
    cache->ahead.erase(pending);
    if (listed.errno_code != 0) return nullptr;  // listed again by the caller, who says why it fails
    return &cache->listings.emplace(real, std::move(listed.names)).first->second;
}

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
    RunCache* cache = m_cache.cache.get();
    std::string key;
    if (cache) {
        key.reserve(path.size() + 1);
        key += follow_last ? 'F' : 'P';
        key += path;
        if (auto it = cache->resolved.find(key); it != cache->resolved.end()) return it->second;
    }
    auto real = resolve_uncached(path, follow_last);
    if (cache && real) cache->resolved.emplace(std::move(key), *real);
    return real;
}

Expected<std::string> Host::resolve_uncached(std::string_view path, bool follow_last) const {
    std::deque<std::string> pending;
    push_components(pending, path);
    // The components resolved so far, kept as the path they spell ("/usr/lib") and where each
    // begins in it, so a step appends or cuts one component instead of spelling them all again.
    std::string done;
    std::vector<std::size_t> starts;
    auto pop_done = [&] {
        done.resize(starts.back());
        starts.pop_back();
    };
    int hops = 0;
    auto current = [&] { return done.empty() ? std::string("/") : done; };
    while (!pending.empty()) {
        std::string part = std::move(pending.front());
        pending.pop_front();
        if (part == "..") {
            if (!starts.empty()) pop_done();
            continue;
        }
        starts.push_back(done.size());
        done += '/';
        done += part;
        if (pending.empty() && !follow_last) break;
        const std::string machine = current();
        struct stat st {};
        if (!lstat_machine(machine, st)) return Unexpected<Error>(errno_error(errno, machine));
        if (!S_ISLNK(st.st_mode)) {
            if (!pending.empty() && !S_ISDIR(st.st_mode)) return fail(Errc::not_found, machine + ": not a folder");
            continue;
        }
        if (++hops > kMaxLinkHops) return fail(Errc::loop, std::string(path) + ": symbolic link loop");
        std::string t;
        RunCache::Entry* cached = nullptr;
        if (m_cache.cache) {
            auto it = m_cache.cache->lstats.find(machine);
            if (it != m_cache.cache->lstats.end()) cached = &it->second;
        }
        if (cached && (!cached->target.empty() || cached->link_errno != 0)) {
            if (cached->link_errno != 0) return Unexpected<Error>(errno_error(cached->link_errno, machine));
            t = cached->target;
        } else {
            char target[PATH_MAX];
            const auto n = ::readlink(host_path(machine).c_str(), target, sizeof target - 1);
            if (n < 0) {
                const int err = errno;
                if (cached) cached->link_errno = err;
                return Unexpected<Error>(errno_error(err, machine));
            }
            t.assign(target, static_cast<std::size_t>(n));
            if (cached) cached->target = t;
        }
        pop_done();
        if (t.starts_with('/')) {
            done.clear();
            starts.clear();
        }
        push_components(pending, t);
    }
    return current();
}

Expected<std::string> Host::resolve(std::string_view path) const { return resolve_impl(path, true); }
Expected<std::string> Host::resolve_parent(std::string_view path) const { return resolve_impl(path, false); }

/// Opens a machine path for reading if it is a regular file: folders, FIFOs and devices are
/// refused before open(2), so a FIFO cannot block the probe.
Expected<int> Host::open_regular(std::string_view path, std::uint64_t* size) const {
    auto real = resolve(path);
    if (!real) return Unexpected<Error>(real.error());
    const std::string hp = host_path(*real);
    struct stat st {};
    if (!stat_resolved(*real, st)) return Unexpected<Error>(errno_error(errno, std::string(path)));
    if (!S_ISREG(st.st_mode)) return fail(Errc::io, std::string(path) + ": not a regular file");
    const int fd = ::open(hp.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return Unexpected<Error>(errno_error(errno, std::string(path)));
    if (size) *size = static_cast<std::uint64_t>(st.st_size);
    return fd;
}

Expected<std::string> Host::read_file(std::string_view path, std::size_t cap) const {
    std::uint64_t size_hint = 0;
    auto fd = open_regular(path, &size_hint);
    if (!fd) return Unexpected<Error>(fd.error());
    // Read straight into the result. st_size only sizes the first buffer (one byte more, to see
    // the end in the same call): /proc and /sys say 0 or 4096 whatever they hold, so the file is
    // still read until end of file, growing the buffer as needed, never past cap + 1 bytes.
    constexpr std::size_t kFirstBuffer = 4096;
    const std::size_t limit = cap == SIZE_MAX ? cap : cap + 1;
    std::string data;
    data.resize(static_cast<std::size_t>(std::min<std::uint64_t>(std::max<std::uint64_t>(size_hint + 1, kFirstBuffer), limit)));
    std::size_t got = 0;
    while (true) {
        if (got == data.size()) data.resize(std::min(data.size() * 2, limit));
        const auto n = ::read(*fd, data.data() + got, data.size() - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(*fd);
            return Unexpected<Error>(errno_error(err, std::string(path)));
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
        if (got > cap) {
            ::close(*fd);
            return fail(Errc::too_large, std::string(path) + ": larger than " + std::to_string(cap) + " bytes");
        }
    }
    ::close(*fd);
    data.resize(got);
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
    if (!stat_resolved(*real, st)) return Unexpected<Error>(errno_error(errno, std::string(path)));
    return to_info(st);
}

Expected<FileInfo> Host::lstat(std::string_view path) const {
    auto real = resolve_parent(path);
    if (!real) return Unexpected<Error>(real.error());
    struct stat st {};
    if (!lstat_machine(*real, st)) return Unexpected<Error>(errno_error(errno, std::string(path)));
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
    if (const auto* cached = cached_listing(*real)) return *cached;
    std::vector<std::string> uncached;
    auto names = list_resolved(path, *real, uncached);
    if (!names) return Unexpected<Error>(names.error());
    if (*names == &uncached) return uncached;  // moved (an implicitly movable local)
    return **names;                            // the cache keeps its own
}

Expected<const std::vector<std::string>*> Host::list_resolved(std::string_view path, const std::string& real,
                                                              std::vector<std::string>& uncached) const {
    detail::Listing listed = detail::read_folder(host_path(real));
    if (listed.errno_code != 0) return Unexpected<Error>(errno_error(listed.errno_code, std::string(path)));
    if (m_cache.cache) return &m_cache.cache->listings.emplace(real, std::move(listed.names)).first->second;
    uncached = std::move(listed.names);
    return &uncached;
}

void Host::list_ahead(std::string_view dir, Worker& worker) const {
    RunCache* cache = m_cache.cache.get();
    if (!cache) return;
    auto real = resolve(dir);
    if (!real || cache->listings.contains(*real) || cache->ahead.contains(*real)) return;
    cache->ahead.emplace(*real, worker.post([folder = host_path(*real)] { return detail::read_folder(folder); }));
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
    auto real = resolve(dir);
    if (!real) return out;
    const std::vector<std::string>* names = cached_listing(*real);
    std::vector<std::string> uncached;
    if (!names) {
        auto listed = list_resolved(dir, *real, uncached);
        if (!listed) return out;
        names = *listed;
    }
    const std::string pat(pattern);
    // A name without the pattern's plain run cannot match: most of /usr/bin is out at once.
    const std::string_view literal = required_literal(pattern);
    // A match begins with the pattern's plain start ("libcudnn.so." of "libcudnn.so.*"): a
    // prefix compare rules most names out before find(), which stops at every 'l' of "lib…".
    const std::string_view leading = pattern.substr(0, pattern.find_first_of("*?[\\"));
    for (const auto& name : *names) {
        if (!name.starts_with(leading)) continue;
        if (!literal.empty() && name.find(literal) == std::string::npos) continue;
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
