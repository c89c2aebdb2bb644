#pragma once
// The Host: the only door to the machine. Every file read, directory listing, environment
// variable and child process goes through it. A Host made with a root folder ("--root DIR")
// maps every absolute machine path under that folder, resolves symbolic links *inside* it (an
// absolute target is re-rooted, ".." never climbs out), and takes its environment from
// DIR/proc/self/environ — so a whole machine can be a folder of fixture files.
#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace cudoctor {
class Worker;
}

namespace cudoctor::host {

/// What every report says where a fact would need a program of a machine image: an image is inert.
inline constexpr std::string_view kNotRunInImage = "not run: inside a machine image";

enum class FileType { regular, directory, symlink, other };

struct FileInfo {
    FileType type = FileType::other;
    std::uint64_t size = 0;
    bool executable = false;  ///< any execute bit set (regular files only)
    std::int64_t mtime = 0;   ///< seconds since the epoch
};

struct ProcessResult {
    int exit_code = -1;  ///< -1 when killed by a signal
    std::string out;
    std::string err;
};

/// Default cap on a file read: version files, /proc entries and headers are far smaller.
inline constexpr std::size_t kDefaultReadCap = 4u << 20;

class Host {
  public:
    /// The machine this process runs on: root "/", the process environment.
    static Host real();
    /// A machine image in `root_dir`. Errc::not_found when the folder does not exist. The
    /// environment is read from root_dir/proc/self/environ (NUL- or newline-separated
    /// KEY=VALUE entries); absent, the image has an empty environment.
    static Expected<Host> rooted(const std::string& root_dir);

    /// "/" for the real machine, else the image folder (absolute, no trailing slash).
    const std::string& root() const { return m_root; }
    bool is_rooted() const { return m_root != "/"; }

    /// The canonical machine path of `path` with every symbolic link followed inside the root.
    /// Errc::not_found when a component is missing, Errc::loop after 40 link hops.
    /// Relative paths are taken from "/".
    Expected<std::string> resolve(std::string_view path) const;
    /// Like resolve() but the last component is not followed when it is a link.
    Expected<std::string> resolve_parent(std::string_view path) const;

    /// The whole file, read until end of file (never trusting st_size: /proc and /sys lie).
    /// Errc::too_large past `cap` bytes (nothing more is read), Errc::not_found, Errc::loop,
    /// Errc::permission, Errc::io "not a regular file" for folders, FIFOs and devices (they are
    /// never opened for reading, so a FIFO cannot hang the probe).
    Expected<std::string> read_file(std::string_view path, std::size_t cap = kDefaultReadCap) const;
    /// The first `max` bytes of a regular file (for magic numbers and headers).
    Expected<std::string> read_head(std::string_view path, std::size_t max) const;

    /// Follows links. Errc::not_found / Errc::loop as resolve().
    Expected<FileInfo> stat(std::string_view path) const;
    /// Does not follow a final link.
    Expected<FileInfo> lstat(std::string_view path) const;
    /// The raw target of a symbolic link, as stored (not re-rooted). Errc::parse if not a link.
    Expected<std::string> read_link(std::string_view path) const;
    /// Entry names of a folder (no "." or ".."), sorted. Errc::not_found, Errc::io if not a folder.
    Expected<std::vector<std::string>> list_dir(std::string_view path) const;

    bool exists(std::string_view path) const { return stat(path).has_value(); }
    bool is_dir(std::string_view path) const;
    bool is_file(std::string_view path) const;
    bool is_executable_file(std::string_view path) const;

    /// Lists the folder `dir` on `worker` now, ahead of the first list_dir() or glob() of it,
    /// which then take that listing instead of reading the folder: the answers are the same
    /// (the cache's own rule: the machine's files do not change while its guard lives), and
    /// the reading is done on another core while this one works. Only while a CacheScope
    /// lives, and only for a folder not listed yet; otherwise, or when `dir` does not resolve,
    /// nothing happens. A listing that fails there is done again at its first use, which
    /// reports the error as always.
    void list_ahead(std::string_view dir, Worker& worker) const;

    /// Machine paths `dir/<name>` whose name matches the fnmatch(3) `pattern`, sorted.
    std::vector<std::string> glob(std::string_view dir, std::string_view pattern) const;

    /// A machine environment variable, or nullopt when unset (set-but-empty is "").
    std::optional<std::string> env(std::string_view key) const;
    const std::map<std::string, std::string>& environment() const { return m_env; }

    /// Runs argv (argv[0] a path on this machine; never a shell) with stdin closed,
    /// output captured (each stream capped at 1 MiB) and a time limit: past it the whole process
    /// group is killed and Errc::timeout returned. Errc::not_found when argv[0] does not exist.
    /// A rooted Host runs nothing (Errc::permission): an image is inert.
    Expected<ProcessResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) const;

    /// Where a machine path lives on this computer's filesystem (root + path), unresolved.
    std::string host_path(std::string_view machine_path) const;

    /// While the returned guard lives, the Host remembers what it learnt of the machine's files:
    /// each path component's lstat(2) and link target (so resolving /usr/local/cuda/lib64/x
    /// does not stat /usr, /usr/local … again), and each folder's listing. One probe run reads
    /// the same folders and stats the same prefixes many times; the files do not change under
    /// it. Answers are the same as without the cache as long as the machine's files do not
    /// change while the guard lives (a path found missing stays missing).
    /// A guard made while another lives does nothing. Copies of the Host do not share the
    /// cache. Not for use by two threads at once while a guard lives.
    class [[nodiscard]] CacheScope {
      public:
        explicit CacheScope(const Host& host);
        ~CacheScope();
        CacheScope(const CacheScope&) = delete;
        CacheScope& operator=(const CacheScope&) = delete;

      private:
        const Host* m_host = nullptr;  ///< null when an outer guard owns the cache
    };
    CacheScope cache_scope() const { return CacheScope(*this); }

    /// An error about a machine path, for the user: " (inside the image ROOT)" added on a rooted
    /// Host, so nobody looks for the path on this computer. (Host's own errors name machine paths
    /// only: they go into snapshots, which must not depend on where an image lies.)
    Error in_image(Error e) const;

  private:
    Host(std::string root, std::map<std::string, std::string> env) : m_root(std::move(root)), m_env(std::move(env)) {}
    Expected<std::string> resolve_impl(std::string_view path, bool follow_last) const;
    Expected<std::string> resolve_uncached(std::string_view path, bool follow_last) const;
    /// `size`, when given, receives st_size (a hint only: /proc and /sys lie).
    Expected<int> open_regular(std::string_view path, std::uint64_t* size = nullptr) const;

    struct RunCache;
    /// lstat(2) of the machine path `machine` (its host_path), through the cache when one is on;
    /// false with errno set on failure.
    bool lstat_machine(const std::string& machine, struct stat& st) const;
    /// stat(2) of a resolved machine path: the cached lstat when it was no link, else the call.
    bool stat_resolved(const std::string& real, struct stat& st) const;
    /// The cached listing of a resolved folder, or null (no cache, not listed yet).
    const std::vector<std::string>* cached_listing(const std::string& real) const;
    /// Lists a resolved folder, sorted: into the cache when one is on (the cached names are
    /// returned, not copied), else into `uncached`.
    Expected<const std::vector<std::string>*> list_resolved(std::string_view path, const std::string& real,
                                                            std::vector<std::string>& uncached) const;

    /// Holds the cache of a CacheScope; copying a Host copies no cache.
    struct CacheSlot {
        std::shared_ptr<RunCache> cache;
        CacheSlot() = default;
        CacheSlot(const CacheSlot&) noexcept {}
        CacheSlot(CacheSlot&&) noexcept {}
        // NOLINTNEXTLINE(bugprone-unhandled-self-assignment): assigning keeps this slot's cache, whatever the source
        CacheSlot& operator=(const CacheSlot&) noexcept { return *this; }
        CacheSlot& operator=(CacheSlot&&) noexcept { return *this; }
        ~CacheSlot() = default;
    };

    std::string m_root;
    std::map<std::string, std::string> m_env;
    mutable CacheSlot m_cache;
};

/// Parses an environment block: KEY=VALUE entries separated by NUL bytes or newlines.
std::map<std::string, std::string> parse_environ(std::string_view block);

/// Joins machine paths: join("/usr/local", "cuda") == "/usr/local/cuda".
std::string join(std::string_view a, std::string_view b);
/// The folder part of a machine path ("/a/b/c" → "/a/b"; "/a" → "/").
std::string dirname(std::string_view path);
/// The last component ("/a/b/c" → "c").
std::string basename(std::string_view path);

}  // namespace cudoctor::host
