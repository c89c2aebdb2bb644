#pragma once
// Every Prometheus metric cudoctor writes, in one place: its name, type, help line and labels.
// `check`, `fleet` and `watch report` (--format prometheus) write only these, through
// report::MetricWriter, so a name or a label is spelled once. Names follow the Prometheus and
// OpenMetrics conventions: a `cudoctor_` prefix, base units (seconds, bytes), `_total` on
// counters only, `_info` on the 1-valued metrics whose labels carry the facts.
#include <array>
#include <cstddef>
#include <string_view>

namespace cudoctor::report {

enum class MetricType { gauge, counter };

/// One metric family. `labels` in the order they are written; unused slots are empty.
struct MetricFamily {
    std::string_view name;
    MetricType type = MetricType::gauge;
    std::string_view help;
    std::array<std::string_view, 4> labels{};

    constexpr std::size_t label_count() const {
        std::size_t n = 0;
        while (n < labels.size() && !labels[n].empty()) ++n;
        return n;
    }
};

namespace metric {

/// The label `fleet` puts first on every per-machine family: the node's name.
inline constexpr std::string_view kNodeLabel = "node";

// -- one machine: check, and per node in fleet --
inline constexpr MetricFamily finding{"cudoctor_finding",
                                      MetricType::gauge,
                                      "Active findings of a rule (1 per finding; a rule that fires twice is 2).",
                                      {"rule", "severity", "layer"}};
inline constexpr MetricFamily findings{"cudoctor_findings", MetricType::gauge, "Number of active findings of each severity.", {"severity"}};
inline constexpr MetricFamily gpu_code_runnable{"cudoctor_gpu_code_runnable",
                                                MetricType::gauge,
                                                "0 where the machine's facts prove it can run nothing on a GPU (no NVIDIA GPU, "
                                                "or no NVIDIA driver loaded): check exits 1 there too; else 1.",
                                                {}};
inline constexpr MetricFamily driver_info{"cudoctor_driver_info",
                                          MetricType::gauge,
                                          "The NVIDIA driver: the version that decides what runs, the loaded kernel module's "
                                          "version (empty when none is loaded) and its flavour (proprietary, open or empty).",
                                          {"version", "kernel_module", "flavour"}};
inline constexpr MetricFamily toolkit_info{"cudoctor_toolkit_info",
                                           MetricType::gauge,
                                           "A CUDA toolkit: its release (the version nvcc reports when the release is unknown), "
                                           "its folder, and whether /usr/local/cuda points to it.",
                                           {"release", "path", "default"}};
inline constexpr MetricFamily cudnn_info{"cudoctor_cudnn_info",
                                         MetricType::gauge,
                                         "A copy of cuDNN: its version, the CUDA major it is built for and its folder.",
                                         {"version", "cuda_major", "path"}};
inline constexpr MetricFamily framework_info{"cudoctor_framework_info",
                                             MetricType::gauge,
                                             "A deep-learning framework: its name, version and the CUDA it was built with "
                                             "(empty for a CPU build).",
                                             {"name", "version", "cuda"}};
inline constexpr MetricFamily gpu_info{"cudoctor_gpu_info",
                                       MetricType::gauge,
                                       "An NVIDIA GPU on the PCI bus: its position in PCI order, name, compute capability and "
                                       "PCI address.",
                                       {"index", "name", "compute_capability", "pci"}};
inline constexpr MetricFamily check_timestamp{"cudoctor_check_timestamp_seconds",
                                              MetricType::gauge,
                                              "When the machine was probed, in seconds since the epoch.",
                                              {}};

/// The info families, in the order they are written.
inline constexpr std::array kInfoFamilies = {driver_info, toolkit_info, cudnn_info, framework_info, gpu_info};

// -- fleet --
inline constexpr MetricFamily fleet_nodes{"cudoctor_fleet_nodes", MetricType::gauge, "Nodes with a readable snapshot.", {}};
inline constexpr MetricFamily fleet_unreadable{"cudoctor_fleet_unreadable_snapshots",
                                               MetricType::gauge,
                                               "Snapshot files that could not be read, or duplicates of a newer one.",
                                               {}};
inline constexpr MetricFamily fleet_node_drift{"cudoctor_fleet_node_drift",
                                               MetricType::gauge,
                                               "1 for each layer in which a node differs from the reference (the majority or the baseline).",
                                               {"node", "layer"}};
inline constexpr MetricFamily fleet_node_stale{"cudoctor_fleet_node_stale",
                                               MetricType::gauge,
                                               "1 for a node whose snapshot is older than --stale-after before the newest one.",
                                               {"node"}};

// -- watch report --
inline constexpr MetricFamily gpu_memory_used{"cudoctor_gpu_memory_used_bytes",
                                              MetricType::gauge,
                                              "GPU memory in use at the last sample of the watch.",
                                              {"gpu", "uuid"}};
inline constexpr MetricFamily xid_events{"cudoctor_xid_events_total",
                                         MetricType::counter,
                                         "Xid reports of the NVIDIA driver during the watch.",
                                         {"gpu", "uuid", "xid"}};
inline constexpr MetricFamily memory_trend{"cudoctor_memory_trend_bytes_per_hour",
                                           MetricType::gauge,
                                           "Fitted growth of GPU memory over the watch (a process, or the whole GPU "
                                           "with pid=\"\"); absent while the series is too short to tell.",
                                           {"gpu", "pid"}};
inline constexpr MetricFamily memory_leak{"cudoctor_memory_leak",
                                          MetricType::gauge,
                                          "1 where the memory trend is a leak, 0 where it is not (flat, shrinking or a "
                                          "caching allocator's sawtooth).",
                                          {"gpu", "pid"}};
inline constexpr MetricFamily cuda_errors{"cudoctor_watch_cuda_errors_total",
                                          MetricType::counter,
                                          "CUDA errors in the launched command's output during the watch.",
                                          {}};

}  // namespace metric
}  // namespace cudoctor::report
