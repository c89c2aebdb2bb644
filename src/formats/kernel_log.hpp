#pragma once
// The NVIDIA driver's reports in a kernel log: "NVRM: Xid (PCI:0000:01:00): 79, pid=…, GPU has
// fallen off the bus." and its friends, read from any of the forms people save a kernel log in:
//   dmesg                 [ 1843.308145] NVRM: Xid (PCI:0000:01:00): 79, …
//   dmesg -T              [Mon Jan 12 10:00:00 2024] NVRM: …
//   journalctl -k         Nov 18 17:26:39 host kernel: NVRM: Xid (0000:00:05): 9, …
//   journalctl -o short-iso, rsyslog, Talos
//                         2024-01-12T10:00:00+0000 host kernel: [   12.34] NVRM: …
//   /var/log/kern.log     May  6 00:38:27 alex kernel: [ 4909.922970] NVRM: Xid (0000:01:00): 13, …
//   /dev/kmsg             4,1234,5678901,-;NVRM: Xid …
// Pure: text in, events out; no I/O.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudoctor::formats {

enum class KernelEventKind {
    xid,             ///< "NVRM: Xid (PCI:…): N, …" — a GPU error the driver caught
    sxid,            ///< "nvidia-nvswitchK: SXid (PCI:…): N, …" — an NVSwitch error
    fallen_off_bus,  ///< "NVRM: The NVIDIA GPU 0000:b3:00.0 … fallen off the bus" without an Xid
    rm_init_failed,  ///< "NVRM: RmInitAdapter failed!" — the driver could not bring a GPU up
    api_mismatch,    ///< "NVRM: API mismatch: the client has the version X, but this kernel module has Y"
};

/// "xid", "sxid", "fallen-off-bus", "rm-init-failed", "api-mismatch".
const char* to_string(KernelEventKind kind);

/// One driver report in a kernel log.
struct KernelEvent {
    KernelEventKind kind = KernelEventKind::xid;
    std::size_t line = 0;            ///< 1-based line number in the text given
    int code = 0;                    ///< the Xid / SXid number; 0 for the other kinds
    std::string pci;                 ///< "0000:01:00" as the driver wrote it ("" when none); lower case
    std::string gpu_uuid;            ///< from an earlier "NVRM: GPU at PCI:<pci>: GPU-…" line, else ""
    std::optional<long> pid;         ///< pid=1234; nullopt for pid='<unknown>' or none
    std::string process;             ///< name=python ("" for <unknown> or none)
    std::string message;             ///< the text after the code (and pid/name), printable, at most 300 bytes
    std::optional<double> uptime_s;  ///< seconds since boot, from "[ 1843.308145]" or a /dev/kmsg record
    std::string wall_time;           ///< the wall-clock stamp as written ("May  6 00:38:27", ISO 8601), or ""
};

/// Every event in `text`, in order. Never fails: lines that are not driver reports are skipped,
/// as are malformed reports (an Xid without a number, a number past 99999); control bytes and
/// invalid UTF-8 become '?' in the kept text; lines longer than 64 KiB are looked at only in
/// their first 64 KiB. At most `max_events` are returned (the first ones).
std::vector<KernelEvent> parse_kernel_log(std::string_view text, std::size_t max_events = 100000);

/// One line on its own (no "GPU at PCI" context, line number 1); nullopt when it is not a report
/// (a multi-line "fallen off the bus" needs parse_kernel_log).
std::optional<KernelEvent> parse_kernel_line(std::string_view line);

}  // namespace cudoctor::formats
