#include "fleet/reader.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "formats/json_text.hpp"
#include "host/files.hpp"
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

std::vector<std::variant<NodeSummary, Unreadable>> read_fleet(const std::vector<std::string>& files, const kb::Kb& kb, unsigned jobs,
                                                              bool with_metrics) {
    std::vector<std::variant<NodeSummary, Unreadable>> results(files.size());
    if (jobs == 0) jobs = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
    jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(files.size(), 1)));
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < files.size(); i = next++) {
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
