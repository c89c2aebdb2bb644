#include "watch/sample_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "common/text.hpp"
#include "host/files.hpp"
#include "report/style.hpp"

namespace cudoctor::watch {
namespace {

constexpr const char* kGpuHeader =
    "time,elapsed_s,gpu,uuid,pci,name,memory_used_bytes,memory_total_bytes,util_gpu_pct,util_memory_pct,temperature_c,power_mw,"
    "sm_clock_mhz,memory_clock_mhz\n";
constexpr const char* kProcessHeader = "time,elapsed_s,gpu,pid,name,used_memory_bytes\n";
constexpr const char* kEventHeader = "time,elapsed_s,kind,code,gpu,pid,name,text\n";
constexpr std::uintmax_t kMaxCsvBytes = 1ull << 30;
constexpr std::size_t kMaxWarnings = 20;
constexpr std::size_t kMaxMetaBytes = 1u << 20;  // watch.json: a few hundred bytes of settings

Expected<void> write_all(int fd, std::string_view row, const std::string& what) {
    // One write(2) per row: appended whole, or (disk full) reported.
    const ssize_t n = ::write(fd, row.data(), row.size());
    if (n == static_cast<ssize_t>(row.size())) return {};
    return fail(Errc::io, "cannot write " + what + ": " + (n < 0 ? std::strerror(errno) : "disk full"));
}

Expected<int> open_csv(const std::string& path, const char* header) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST) return fail(Errc::usage, path + " exists: this folder already holds a watch (give another --out)");
        return fail(Errc::io, "cannot create " + path + ": " + std::strerror(errno));
    }
    if (auto w = write_all(fd, header, path); !w) {
        ::close(fd);
        return Unexpected<Error>(w.error());
    }
    return fd;
}

template <class T>
std::string opt(const std::optional<T>& v) {
    return v ? std::to_string(*v) : std::string();
}

std::string seconds(double s) { return fmt::format("{:.3f}", s); }

template <class T>
std::optional<T> number(std::string_view cell) {
    T value{};
    auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    if (ec != std::errc() || end != cell.data() + cell.size() || cell.empty()) return std::nullopt;
    return value;
}

std::optional<double> real(std::string_view cell) {
    try {
        std::size_t used = 0;
        const double v = std::stod(std::string(cell), &used);
        if (used != cell.size()) return std::nullopt;
        return v;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// Calls `row(cells, line)` for every complete row of `path` after its header.
template <class F>
Expected<void> each_row(const std::string& path, std::size_t columns, WatchRecord& record, F row) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return fail(Errc::not_found, "cannot read " + path + ": " + ec.message());
    if (size > kMaxCsvBytes) return fail(Errc::too_large, "cannot read " + path + ": larger than 1 GiB");
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(Errc::io, "cannot read " + path);
    std::string line;
    std::size_t number_ = 0;
    const auto name = std::filesystem::path(path).filename().string();
    auto warn = [&](const std::string& why) {
        if (record.warnings.size() < kMaxWarnings) record.warnings.push_back(fmt::format("{}:{}: {} (skipped)", name, number_, why));
    };
    while (std::getline(in, line)) {
        ++number_;
        if (in.eof()) {  // no line break: a row cut short
            if (!line.empty()) warn("row cut short");
            break;
        }
        if (number_ == 1) continue;
        auto cells = split_csv_row(line);
        if (cells.size() != columns) {
            warn(fmt::format("{} cells, {} expected", cells.size(), columns));
            continue;
        }
        if (!row(cells)) warn("not a number where one belongs");
    }
    return {};
}

}  // namespace

std::vector<std::string> split_csv_row(std::string_view row) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < row.size(); ++i) {
        const char c = row[i];
        if (quoted) {
            if (c == '"' && i + 1 < row.size() && row[i + 1] == '"') {
                cells.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cells.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            cells.emplace_back();
        } else if (c != '\r') {
            cells.back() += c;
        }
    }
    return cells;
}

std::string csv_cell(std::string_view text) {
    std::string clean = text::printable(text, 1000);
    const bool quote = clean.find_first_of(",\"") != std::string::npos || (!clean.empty() && (clean.front() == ' ' || clean.back() == ' '));
    if (!quote) return clean;
    std::string out = "\"";
    for (char c : clean) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

Expected<SampleLog> SampleLog::create(const std::string& dir, const nlohmann::json& meta) {
    // One rule for every output path (check --output too): the folder it goes into must exist.
    // Only the run's own folder is made; a typo'd parent is not created all the way up from /.
    std::error_code ec;
    const auto parent = std::filesystem::path(dir).lexically_normal().parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
        return fail(Errc::not_found, "--out " + dir + ": " + parent.string() + " is not an existing folder");
    std::filesystem::create_directory(dir, ec);
    if (ec) return fail(Errc::io, "cannot create " + dir + ": " + ec.message());
    auto gpus = open_csv(dir + "/gpus.csv", kGpuHeader);
    if (!gpus) return Unexpected<Error>(gpus.error());
    auto processes = open_csv(dir + "/processes.csv", kProcessHeader);
    auto events = processes ? open_csv(dir + "/events.csv", kEventHeader) : Expected<int>(-1);
    if (!processes || !events) {
        ::close(*gpus);
        if (processes) ::close(*processes);
        return Unexpected<Error>(!processes ? processes.error() : events.error());
    }
    SampleLog log(dir, *gpus, *processes, *events);
    if (auto written = host::write_atomically(dir + "/watch.json", report::json_text(meta) + "\n"); !written)
        return Unexpected<Error>(written.error());
    return log;
}

SampleLog::SampleLog(SampleLog&& other) noexcept
    : m_dir(std::move(other.m_dir)),
      m_gpus(std::exchange(other.m_gpus, -1)),
      m_processes(std::exchange(other.m_processes, -1)),
      m_events(std::exchange(other.m_events, -1)) {}

SampleLog::~SampleLog() {
    for (int fd : {m_gpus, m_processes, m_events})
        if (fd >= 0) ::close(fd);
}

Expected<void> SampleLog::gpu(double elapsed, const std::string& time, const GpuReading& g) {
    const auto row = fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", time, seconds(elapsed), g.index, csv_cell(g.uuid),
                                 csv_cell(g.pci), csv_cell(g.name), opt(g.memory_used), opt(g.memory_total), opt(g.util_gpu),
                                 opt(g.util_memory), opt(g.temperature_c), opt(g.power_mw), opt(g.sm_clock_mhz), opt(g.memory_clock_mhz));
    return write_all(m_gpus, row, m_dir + "/gpus.csv");
}

Expected<void> SampleLog::process(double elapsed, const std::string& time, const ProcessReading& p) {
    const auto row = fmt::format("{},{},{},{},{},{}\n", time, seconds(elapsed), p.gpu, p.pid, csv_cell(p.name), opt(p.used_memory));
    return write_all(m_processes, row, m_dir + "/processes.csv");
}

Expected<void> SampleLog::event(const EventRow& e) {
    const auto row = fmt::format("{},{},{},{},{},{},{},{}\n", e.time, seconds(e.elapsed), csv_cell(e.kind), e.code, csv_cell(e.gpu),
                                 opt(e.pid), csv_cell(e.name), csv_cell(e.text));
    return write_all(m_events, row, m_dir + "/events.csv");
}

Expected<WatchRecord> read_watch_dir(const std::string& dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) return fail(Errc::not_found, dir + " is not a folder");
    if (!std::filesystem::exists(dir + "/gpus.csv", ec)) return fail(Errc::not_found, dir + " holds no watch (no gpus.csv)");
    WatchRecord record;
    if (auto meta = host::read_capped(dir + "/watch.json", kMaxMetaBytes)) record.meta = nlohmann::json::parse(*meta, nullptr, false);
    if (!record.meta.is_object()) record.meta = nlohmann::json::object();
    auto gpus = each_row(dir + "/gpus.csv", 14, record, [&](const std::vector<std::string>& c) {
        GpuRow r;
        auto elapsed = real(c[1]);
        auto index = number<unsigned>(c[2]);
        if (!elapsed || !index) return false;
        r.elapsed = *elapsed;
        r.time = c[0];
        r.gpu.index = *index;
        r.gpu.uuid = c[3];
        r.gpu.pci = c[4];
        r.gpu.name = c[5];
        r.gpu.memory_used = number<std::uint64_t>(c[6]);
        r.gpu.memory_total = number<std::uint64_t>(c[7]);
        r.gpu.util_gpu = number<unsigned>(c[8]);
        r.gpu.util_memory = number<unsigned>(c[9]);
        r.gpu.temperature_c = number<unsigned>(c[10]);
        r.gpu.power_mw = number<unsigned>(c[11]);
        r.gpu.sm_clock_mhz = number<unsigned>(c[12]);
        r.gpu.memory_clock_mhz = number<unsigned>(c[13]);
        record.gpus.push_back(std::move(r));
        return true;
    });
    if (!gpus) return Unexpected<Error>(gpus.error());
    auto processes = each_row(dir + "/processes.csv", 6, record, [&](const std::vector<std::string>& c) {
        ProcessRow r;
        auto elapsed = real(c[1]);
        auto gpu = number<unsigned>(c[2]);
        auto pid = number<unsigned>(c[3]);
        if (!elapsed || !gpu || !pid) return false;
        r.elapsed = *elapsed;
        r.time = c[0];
        r.process.gpu = *gpu;
        r.process.pid = *pid;
        r.process.name = c[4];
        r.process.used_memory = number<std::uint64_t>(c[5]);
        record.processes.push_back(std::move(r));
        return true;
    });
    if (!processes && processes.error().code != Errc::not_found) return Unexpected<Error>(processes.error());
    auto events = each_row(dir + "/events.csv", 8, record, [&](const std::vector<std::string>& c) {
        EventRow e;
        auto elapsed = real(c[1]);
        auto code = number<int>(c[3]);
        if (!elapsed || !code) return false;
        e.elapsed = *elapsed;
        e.time = c[0];
        e.kind = c[2];
        e.code = *code;
        e.gpu = c[4];
        if (auto pid = number<long>(c[5])) e.pid = *pid;
        e.name = c[6];
        e.text = c[7];
        record.events.push_back(std::move(e));
        return true;
    });
    if (!events && events.error().code != Errc::not_found) return Unexpected<Error>(events.error());
    return record;
}

}  // namespace cudoctor::watch
