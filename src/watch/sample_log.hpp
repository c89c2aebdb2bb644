#pragma once
// The watch's record on disk, written as it goes and read back by `cudoctor watch report DIR`:
//   DIR/watch.json      how the watch was started (written once, at the start)
//   DIR/gpus.csv        one row per GPU per sample
//   DIR/processes.csv   one row per GPU process per sample
//   DIR/events.csv      Xid and other driver reports, CUDA errors in the command's output, its
//                       exit, samples NVML could not give
// Each row is one write(2) on a file opened with O_APPEND: nothing waits in a buffer, so a
// watch stopped by Ctrl-C, `kill -9` or a power cut keeps every row it wrote. A row cut short
// (the disk filled up) is skipped on reading.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "watch/reading.hpp"

namespace cudoctor::watch {

/// One event row.
struct EventRow {
    double elapsed = 0;  ///< seconds since the watch began
    std::string time;    ///< ISO 8601 UTC
    std::string kind;    ///< "xid", "sxid", "fallen-off-bus", "rm-init-failed", "api-mismatch",
                         ///< "cuda-error", "exit", "sample-failed"
    int code = 0;        ///< the Xid, or the exit status (-N: killed by signal N)
    std::string gpu;     ///< PCI address or GPU index, "" when none
    std::optional<long> pid;
    std::string name;  ///< process name
    std::string text;  ///< the line as reported, printable, one line
};

struct GpuRow {
    double elapsed = 0;
    std::string time;
    GpuReading gpu;
};

struct ProcessRow {
    double elapsed = 0;
    std::string time;
    ProcessReading process;
};

/// Everything a watch folder holds.
struct WatchRecord {
    nlohmann::json meta = nlohmann::json::object();
    std::vector<GpuRow> gpus;
    std::vector<ProcessRow> processes;
    std::vector<EventRow> events;
    std::vector<std::string> warnings;  ///< "gpus.csv:17: 9 cells, 12 expected (skipped)"
};

/// Appends rows to the three files of a watch folder.
class SampleLog {
  public:
    /// Creates `dir` (and parents) and the three CSV files with their header rows, and writes
    /// `meta` to watch.json. Errc::io "cannot create DIR/gpus.csv: why"; Errc::usage when the
    /// folder already holds a watch (gpus.csv exists): a second watch never mixes into a first.
    [[nodiscard]] static Expected<SampleLog> create(const std::string& dir, const nlohmann::json& meta);
    SampleLog(SampleLog&&) noexcept;
    SampleLog& operator=(SampleLog&&) = delete;
    ~SampleLog();

    /// Errc::io when the row could not be written whole (disk full).
    [[nodiscard]] Expected<void> gpu(double elapsed, const std::string& time, const GpuReading& g);
    [[nodiscard]] Expected<void> process(double elapsed, const std::string& time, const ProcessReading& p);
    [[nodiscard]] Expected<void> event(const EventRow& e);

    const std::string& dir() const { return m_dir; }

  private:
    SampleLog(std::string dir, int gpus, int processes, int events)
        : m_dir(std::move(dir)), m_gpus(gpus), m_processes(processes), m_events(events) {}
    std::string m_dir;
    int m_gpus = -1, m_processes = -1, m_events = -1;
};

/// Reads a watch folder. Errc::not_found when DIR or DIR/gpus.csv is missing; Errc::too_large
/// past 1 GiB of CSV; malformed rows are skipped with a warning (at most 20 warnings kept).
[[nodiscard]] Expected<WatchRecord> read_watch_dir(const std::string& dir);

/// Splits one CSV row (RFC 4180 quoting, no line breaks inside). Pure.
std::vector<std::string> split_csv_row(std::string_view row);
/// One CSV cell: quoted when it holds a comma, a quote or leading/trailing spaces. Pure.
std::string csv_cell(std::string_view text);

}  // namespace cudoctor::watch
