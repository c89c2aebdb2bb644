#pragma once
// Follows the kernel log while a watch runs, for the NVIDIA driver's reports (Xid and friends,
// formats/kernel_log.hpp). Only what is logged after the start counts. Sources, in order:
//   --kernel-log FILE          a file (machine path, through the Host), followed from its end
//   /var/log/kern.log          rsyslog's kernel log (Debian, Ubuntu), when readable
//   journalctl -k              through the Host's child processes, at most every 30 s, resumed
//                              from its cursor each time
// When none can be read the watch goes on without it and says why.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/kernel_log.hpp"
#include "host/host.hpp"

namespace cudoctor::watch {

class KernelFollower {
  public:
    /// Chooses the source. `start_epoch` (seconds) is where journalctl starts. Never fails: with
    /// no readable source, description() says why and poll() returns nothing.
    static KernelFollower open(const host::Host& host, const std::optional<std::string>& file, std::int64_t start_epoch);

    /// The driver reports logged since the last poll. A file read takes at most 4 MiB per poll
    /// (the rest comes next time); a file that shrank was rotated and is read from its start.
    /// journalctl runs only when `force` or 30 s have passed since its last run.
    std::vector<formats::KernelEvent> poll(bool force = false);

    /// "/var/log/kern.log", "journalctl -k", or "none: why".
    const std::string& description() const { return m_description; }
    bool available() const { return m_kind != Kind::none; }

  private:
    enum class Kind { none, file, journal };
    KernelFollower(const host::Host& host) : m_host(&host) {}
    std::vector<formats::KernelEvent> poll_file();
    std::vector<formats::KernelEvent> poll_journal();

    const host::Host* m_host;
    Kind m_kind = Kind::none;
    std::string m_description;
    std::string m_path;          ///< machine path of the file, or of journalctl
    std::uint64_t m_offset = 0;  ///< bytes of the file already read
    std::string m_partial;       ///< a line read without its end yet
    std::string m_cursor;        ///< journalctl's cursor after the last run
    std::int64_t m_start_epoch = 0;
    std::chrono::steady_clock::time_point m_last_journal{};
};

}  // namespace cudoctor::watch
