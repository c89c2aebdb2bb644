#pragma once
// The summary of a watch folder: the memory trend of every process and GPU, the GPUs' ranges,
// every driver report with what its Xid means, the CUDA errors and exit of a launched command.
// Rendered as text, JSON, and an SVG plot of memory over time.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "watch/sample_log.hpp"
#include "watch/trend.hpp"
#include "watch/xid_catalog.hpp"

namespace cudoctor::watch {

struct MemorySeries {
    std::string label;  ///< "pid 4242 python3 (GPU 0)", "GPU 0 NVIDIA H100 (all processes)"
    bool is_gpu = false;
    unsigned gpu = 0;
    unsigned pid = 0;
    std::string name;  ///< the process's name, "" for a GPU or when unknown
    std::vector<Point> points;
    Trend trend;
};

struct GpuRange {
    unsigned index = 0;
    std::string name, uuid, pci;
    std::optional<std::uint64_t> memory_total;
    std::optional<unsigned> util_mean, temperature_max, power_max_mw, sm_clock_min, sm_clock_max;
};

struct DriverReport {
    EventRow row;
    std::optional<XidInfo> info;  ///< for an Xid the table knows
    std::optional<unsigned> gpu;  ///< the GPU index whose PCI address the report names
};

struct Summary {
    std::string dir;
    double duration = 0;  ///< seconds from the first to the last sample
    std::size_t samples = 0;
    std::vector<MemorySeries> series;  ///< processes first, then GPUs
    std::vector<GpuRange> gpus;
    std::vector<DriverReport> reports;
    std::vector<EventRow> cuda_errors;
    std::optional<EventRow> exit;
    std::size_t failed_samples = 0;
    std::string first_failure;
    std::vector<std::string> warnings;
    std::string kernel_log;  ///< where driver reports were read from (watch.json)
    /// Why the record holds no GPU sample at all ("no libnvidia-ml.so.1 could be loaded: no
    /// NVIDIA driver here (…)"), "" when it holds one.
    std::string no_gpu_samples;

    /// A leak, a driver report, a CUDA error, or a command that did not exit 0.
    bool problems() const;
};

/// Builds the summary of a record (pure).
[[nodiscard]] Summary summarise(const WatchRecord& record, const XidCatalog& xids, const std::string& dir);

/// The summary in one line, what `-q` prints: "✗ Xid 79 on GPU 0: GPU has fallen off the bus",
/// "✗ memory grows: pid 4242 python3 +38.2 MiB/h on GPU 0", "! no GPU samples: …",
/// "✓ no memory growth (121 samples over 04:00)". Problems first, joined by "; ". Names are as
/// recorded: escape for the medium.
[[nodiscard]] std::string verdict_line(const Summary& s);

void render_text(const Summary& s, std::ostream& out);
nlohmann::json to_json(const Summary& s);
/// The memory of every series over time as a standalone SVG (at most 2000 points per line,
/// keeping each bucket's peak), with a red mark at each driver report.
std::string memory_svg(const Summary& s);

/// "00000000:01:00.0" and "0000:01:00" name the same GPU: domain, bus and device compared as
/// numbers. Pure.
bool same_pci(std::string_view a, std::string_view b);

}  // namespace cudoctor::watch
