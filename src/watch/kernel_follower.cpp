#include "watch/kernel_follower.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "common/text.hpp"

namespace cudoctor::watch {
namespace {

constexpr std::size_t kMaxReadPerPoll = 4u << 20;
constexpr auto kJournalEvery = std::chrono::seconds(30);
constexpr auto kJournalTimeout = std::chrono::seconds(10);

}  // namespace

KernelFollower KernelFollower::open(const host::Host& host, const std::optional<std::string>& file, std::int64_t start_epoch) {
    KernelFollower f(host);
    f.m_start_epoch = start_epoch;
    auto try_file = [&](const std::string& path) -> std::string {
        auto info = host.stat(path);
        if (!info) return info.error().message;
        if (info->type != host::FileType::regular) return path + " is not a regular file";
        if (auto head = host.read_head(path, 1); !head) return head.error().message;
        f.m_kind = Kind::file;
        f.m_path = path;
        f.m_offset = info->size;  // follow from now
        f.m_description = path;
        return {};
    };
    if (file) {
        auto why = try_file(*file);
        if (!why.empty()) f.m_description = "none: " + why;
        return f;
    }
    std::string why = try_file("/var/log/kern.log");
    if (f.available()) return f;
    for (const char* journalctl : {"/usr/bin/journalctl", "/bin/journalctl"}) {
        if (!host.is_executable_file(journalctl)) continue;
        f.m_kind = Kind::journal;
        f.m_path = journalctl;
        f.m_description = "journalctl -k";
        return f;
    }
    f.m_description = "none: /var/log/kern.log: " + why + "; no journalctl";
    return f;
}

std::vector<formats::KernelEvent> KernelFollower::poll(bool force) {
    if (m_kind == Kind::file) return poll_file();
    if (m_kind == Kind::journal) {
        const auto now = std::chrono::steady_clock::now();
        if (!force && m_last_journal != std::chrono::steady_clock::time_point{} && now - m_last_journal < kJournalEvery) return {};
        m_last_journal = now;
        return poll_journal();
    }
    return {};
}

std::vector<formats::KernelEvent> KernelFollower::poll_file() {
    auto info = m_host->stat(m_path);
    if (!info || info->type != host::FileType::regular) return {};
    if (info->size < m_offset) {  // rotated or truncated
        m_offset = 0;
        m_partial.clear();
    }
    if (info->size == m_offset) return {};
    auto real = m_host->resolve(m_path);
    if (!real) return {};
    const int fd = ::open(m_host->host_path(*real).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return {};
    std::string chunk(std::min<std::uint64_t>(info->size - m_offset, kMaxReadPerPoll), '\0');
    const ssize_t n = ::pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(m_offset));
    ::close(fd);
    if (n <= 0) return {};
    chunk.resize(static_cast<std::size_t>(n));
    m_offset += static_cast<std::uint64_t>(n);
    std::string text = std::move(m_partial) + chunk;
    const auto last_break = text.rfind('\n');
    if (last_break == std::string::npos) {
        m_partial = text.size() > kMaxReadPerPoll ? std::string() : std::move(text);
        return {};
    }
    m_partial = text.substr(last_break + 1);
    if (m_partial.size() > kMaxReadPerPoll) m_partial.clear();
    text.resize(last_break + 1);
    return formats::parse_kernel_log(text, 1000);
}

std::vector<formats::KernelEvent> KernelFollower::poll_journal() {
    std::vector<std::string> argv = {m_path, "-k", "-q", "--no-pager", "-o", "short-iso", "--show-cursor"};
    if (m_cursor.empty()) argv.push_back("--since=@" + std::to_string(m_start_epoch));
    else argv.push_back("--after-cursor=" + m_cursor);
    auto run = m_host->run(argv, kJournalTimeout);
    if (!run || run->exit_code != 0) return {};
    std::string_view out = run->out;
    if (auto at = out.rfind("-- cursor: "); at != std::string_view::npos) {
        auto cursor = text::trim(out.substr(at + 11));
        m_cursor = std::string(cursor.substr(0, cursor.find('\n')));
        out = out.substr(0, at);
    }
    return formats::parse_kernel_log(out, 1000);
}

}  // namespace cudoctor::watch
