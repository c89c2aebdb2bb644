#include <algorithm>
#include <string>

#include "report/report.hpp"

namespace cudoctor::report {
namespace {

std::string count(std::size_t n, const char* one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); }

bool noted(const snapshot::Snapshot& snap, std::string_view probe, std::string_view path_prefix) {
    return std::any_of(snap.notes.begin(), snap.notes.end(),
                       [&](const auto& n) { return n.probe == probe || (!path_prefix.empty() && n.path.starts_with(path_prefix)); });
}

bool wsl_libcuda(const snapshot::Snapshot& snap) {
    return std::any_of(snap.driver.libraries.begin(), snap.driver.libraries.end(),
                       [](const auto& l) { return l.name.starts_with("libcuda") && l.path.starts_with("/usr/lib/wsl/"); });
}

/// The findings part of the verdict: "✓ no problems found", "✗ 2 errors, 1 warning: a, b, c".
std::string findings_line(const snapshot::Snapshot& snap) {
    std::size_t errors = 0, warnings = 0, infos = 0;
    std::string ids;
    for (const auto& f : snap.findings) {
        if (f.severity == snapshot::Severity::error) ++errors;
        else if (f.severity == snapshot::Severity::warning) ++warnings;
        else ++infos;
        if (f.severity == snapshot::Severity::info) continue;
        ids += (ids.empty() ? "" : ", ") + f.id;
    }
    if (errors + warnings == 0) return infos == 0 ? "✓ no problems found" : "✓ no problems found (" + count(infos, "note") + ")";
    std::string line = errors ? "✗ " + count(errors, "error") : "! " + count(warnings, "warning");
    if (errors && warnings) line += ", " + count(warnings, "warning");
    return line + ": " + ids;
}

}  // namespace

std::string cannot_run_reason(const snapshot::Snapshot& snap) {
    const auto& d = snap.driver;
    // A loaded nvidia module, a WSL2 GPU, or an unreadable PCI bus / driver file: nothing proven.
    if (!d.kernel_module_version.empty() || snap.platform.wsl_gpu) return {};
    if (noted(snap, "gpu", "/proc/driver/nvidia")) return {};
    if (snap.gpus.empty()) {
        // Under WSL2 the GPU is no PCI device: only the absence of the Windows driver's libcuda
        // too proves there is none (a snapshot older than wsl_gpu has no /dev/dxg fact).
        if (snap.platform.wsl && wsl_libcuda(snap)) return {};
        return "no NVIDIA GPU";
    }
    // Under WSL2 there is never an nvidia module (the Windows driver serves the GPU).
    if (snap.platform.wsl || d.modules_known == std::optional<bool>(false)) return {};
    return "no NVIDIA driver loaded";
}

std::string cannot_run_verdict(const snapshot::Snapshot& snap) {
    const std::string reason = cannot_run_reason(snap);
    if (reason.empty()) return {};
    const bool nvcc = std::any_of(snap.toolkits.begin(), snap.toolkits.end(), [](const auto& tk) { return tk.has_nvcc; });
    return (nvcc ? "this machine can compile CUDA code but run nothing on a GPU: " : "this machine can run nothing on a GPU: ") + reason;
}

std::string machine_heading(const snapshot::Snapshot& snap, const std::optional<std::string>& snapshot_file) {
    if (!snapshot_file) return snap.root == "/" ? "this machine" : snap.root;
    // Read from a file: the machine is the one it was taken on, named by itself.
    std::string where = snap.hostname.empty() ? "an unknown host" : snap.hostname;
    if (snap.root != "/" && !snap.root.empty()) where += ", image " + snap.root;
    return where + " (snapshot taken " + (snap.taken_at.empty() ? "at an unknown time" : snap.taken_at) + ", read from " + *snapshot_file +
           ")";
}

std::string verdict_line(const snapshot::Snapshot& snap) {
    std::string findings = findings_line(snap);  // not const: returned, it is moved
    const std::string cannot = cannot_run_verdict(snap);
    if (cannot.empty()) return findings;
    // The machine's state comes first; findings (the VM, nouveau: why, and the fix) follow.
    return "✗ " + cannot + (findings.starts_with("✓") ? "" : " — " + findings.substr(findings.find(' ') + 1));
}

}  // namespace cudoctor::report
