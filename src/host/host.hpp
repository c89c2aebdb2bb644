#pragma once
// The Host: the only door to the machine. Every file read, directory listing, environment
// variable and child process goes through it. A Host made with a root folder ("--root DIR")
// maps every absolute machine path under that folder, resolves symbolic links *inside* it (an
// absolute target is re-rooted, ".." never climbs out), and takes its environment from
// DIR/proc/self/environ — so a whole machine can be a folder of fixture files.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

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

    /// An error about a machine path, for the user: " (inside the image ROOT)" added on a rooted
    /// Host, so nobody looks for the path on this computer. (Host's own errors name machine paths
    /// only: they go into snapshots, which must not depend on where an image lies.)
    Error in_image(Error e) const;

  private:
    Host(std::string root, std::map<std::string, std::string> env) : m_root(std::move(root)), m_env(std::move(env)) {}
    Expected<std::string> resolve_impl(std::string_view path, bool follow_last) const;
    Expected<int> open_regular(std::string_view path) const;

    std::string m_root;
    std::map<std::string, std::string> m_env;
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
