#include "fleet/reader.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/json_text.hpp"
#include "host/files.hpp"
#include "rules/rules.hpp"
#include "snapshot/fast_reader.hpp"
#include "snapshot/snapshot_json.hpp"
#include "snapshot/validate.hpp"

namespace cudoctor::fleet {
namespace fs = std::filesystem;

Expected<std::vector<std::string>> snapshot_files(const std::vector<std::string>& inputs) {
    std::vector<std::string> files;
    for (const auto& input : inputs) {
        std::error_code ec;
        const auto st = fs::status(input, ec);
        if (ec || !fs::exists(st)) return fail(Errc::not_found, "no such file or folder: " + input);
        if (!fs::is_directory(st)) {
            files.push_back(input);
            continue;
        }
        std::vector<std::string> found;
        fs::recursive_directory_iterator it(input, fs::directory_options::skip_permission_denied, ec), end;
        if (ec) return fail(Errc::io, "cannot list " + input + ": " + ec.message());
        for (; it != end; it.increment(ec)) {
            if (ec) return fail(Errc::io, "cannot list " + input + ": " + ec.message());
            const auto& p = it->path();
            // Links to snapshot files count (a "latest.json" → dated file); links to folders are
            // not entered (the default), so a loop cannot recurse.
            if (p.extension() == ".json" && !it->is_directory(ec)) found.push_back(p.string());
        }
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    if (files.empty()) return fail(Errc::usage, "no snapshot files (*.json) found");
    return files;
}

Expected<snapshot::Snapshot> read_snapshot_file(const std::string& file) {
    auto read = host::read_capped(file, kMaxSnapshotBytes);
    if (!read) {
        // The file is named beside the message (Unreadable::file): say only what is wrong.
        std::string why = read.error().message;
        if (why.starts_with(file + ": ")) why.erase(0, file.size() + 2);
        return fail(read.error().code, std::move(why));
    }
    const std::string& data = *read;
    const std::size_t got = data.size();
    if (data.find_first_not_of(" \t\r\n") == std::string::npos) return fail(Errc::truncated, "empty file");
    auto snap = snapshot::machine_from_json_text(data);
    if (!snap && snap.error().code == Errc::parse && snap.error().message == "not a JSON document") {
        // Distinguish a cut-off file (a copy interrupted, a full disk) from other garbage: a
        // truncated document is a valid prefix, so the parser fails at its very end.
        const auto where = formats::detail::json_syntax_error(data);
        if (where.byte >= got)
            return fail(Errc::truncated, "truncated JSON (the document ends early, after " + std::to_string(got) + " bytes)");
        return fail(Errc::parse, "not JSON (syntax error at byte " + std::to_string(where.byte) + ")");
    }
    return snap;
}

namespace {

// The bytes of `file` in the reader's buffer, as host::read_capped would read them; nullopt for
// anything else (not a regular file, too large, an error, a file that grew while read): then
// read_snapshot_file reads it again and says what is wrong.
std::optional<std::size_t> read_into(const std::string& file, snapshot::FastReader& reader) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return std::nullopt;
    std::optional<std::size_t> got;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 && static_cast<std::uint64_t>(st.st_size) <= kMaxSnapshotBytes) {
        // One byte more than the file has: reading it means the file grew.
        const std::size_t room = static_cast<std::size_t>(st.st_size) + 1;
        char* data = reader.buffer(room);
        std::size_t size = 0;
        bool failed = false;
        while (size < room) {
            const ssize_t n = ::read(fd, data + size, room - size);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) failed = true;
            if (n <= 0) break;
            size += static_cast<std::size_t>(n);
        }
        if (!failed && size < room) got = size;
    }
    ::close(fd);
    return got;
}

// Today's rules over the configurations one thread has seen last. In a fleet most nodes share a
// configuration, and the rules read neither the host name nor the time of a snapshot
// (tests/unit/fleet_fast_reader_test.cpp checks it): a snapshot equal to a seen one but for
// those two gets the findings the rules gave that one.
class RuleMemo {
  public:
    const std::vector<snapshot::Finding>& findings(snapshot::Snapshot& snap, const kb::Kb& kb) {
        std::string hostname = std::exchange(snap.hostname, {});
        std::string taken_at = std::exchange(snap.taken_at, {});
        auto it = std::find_if(m_seen.begin(), m_seen.end(), [&](const Seen& s) { return s.snapshot == snap; });
        if (it == m_seen.end()) {
            if (m_seen.size() == kSize) m_seen.pop_back();
            m_seen.push_back({snap, rules::evaluate(snap, kb)});
            it = m_seen.end() - 1;
        }
        std::rotate(m_seen.begin(), it, it + 1);  // the most recent first: found soonest
        snap.hostname = std::move(hostname);
        snap.taken_at = std::move(taken_at);
        return m_seen.front().findings;
    }

  private:
    static constexpr std::size_t kSize = 16;  ///< a few configurations, a few snapshots' memory
    struct Seen {
        snapshot::Snapshot snapshot;  ///< without host name and time
        std::vector<snapshot::Finding> findings;
    };
    std::vector<Seen> m_seen;
};

}  // namespace

std::vector<std::variant<NodeSummary, Unreadable>> read_fleet(const std::vector<std::string>& files, const kb::Kb& kb, unsigned jobs,
                                                              bool with_metrics, SnapshotParser parser) {
    std::vector<std::variant<NodeSummary, Unreadable>> results(files.size());
    if (jobs == 0) jobs = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
    jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(files.size(), 1)));
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        // This thread's parser, buffer and Snapshot, reused file after file.
        snapshot::FastReader reader;
        snapshot::Snapshot fast;
        RuleMemo memo;
        for (std::size_t i = next++; i < files.size(); i = next++) {
            if (parser == SnapshotParser::fast) {
                const auto size = read_into(files[i], reader);
                if (size && reader.parse_into(*size, fast)) {
                    results[i] = summarize(fast, memo.findings(fast, kb), files[i], with_metrics);
                    continue;
                }
            }
            auto snap = read_snapshot_file(files[i]);
            if (!snap) {
                results[i] = Unreadable{files[i], to_string(snap.error().code), snap.error().message};
                continue;
            }
            results[i] = summarize(*snap, kb, files[i], with_metrics);
        }
    };
    std::vector<std::jthread> threads;
    for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
    worker();
    return results;
}

}  // namespace cudoctor::fleet
