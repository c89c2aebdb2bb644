#include "report/summary.hpp"

#include <fmt/format.h>

#include "common/text.hpp"
#include "report/style.hpp"

namespace cudoctor::report::detail {

std::string describe(const snapshot::Gpu& gpu) {
    std::vector<std::string> parts;
    parts.push_back(gpu.name.empty() ? "unknown NVIDIA device" : gpu.name);
    parts.push_back("[" + gpu.pci_device_id + "]");
    std::string head = join(parts, " ", true);
    std::vector<std::string> tail = {gpu.architecture, gpu.compute_capability.empty() ? "" : "compute " + gpu.compute_capability,
                                     gpu.bound_driver.empty() ? "no driver bound" : "driver " + gpu.bound_driver};
    return gpu.bus_id + "  " + head + " · " + join(tail, " · ", true);
}

std::string describe(const snapshot::Toolkit& tk) {
    std::vector<std::string> tail = {std::string(snapshot::to_string(tk.install_method)), tk.has_nvcc ? "nvcc" : "no nvcc",
                                     tk.is_default ? "default (/usr/local/cuda)" : "",
                                     tk.first_on_path ? "first on PATH" : (tk.on_path ? "on PATH (shadowed)" : ""),
                                     tk.max_gcc ? fmt::format("gcc ≤ {}", *tk.max_gcc) : ""};
    // The release NVIDIA's tables name (12.6.2), with the nvcc version beside it where they differ.
    const std::string shown = tk.version.empty()                               ? "(version unknown)"
                              : tk.release.empty() || tk.release == tk.version ? tk.version
                                                                               : tk.release + " (nvcc " + tk.version + ")";
    return fmt::format("CUDA {}  {}  {}", shown, tk.path, join(tail, " · ", true));
}

std::string describe(const snapshot::Cudnn& c) {
    std::vector<std::string> tail = {c.location, c.cuda_major.empty() ? "" : "for CUDA " + c.cuda_major,
                                     c.loader_visible ? "loader finds it" : "not on the loader path"};
    if (!c.header_version.empty() && !c.library_versions.empty() && c.library_versions.front().find('.') != std::string::npos &&
        c.library_versions.front() != c.header_version)
        tail.push_back("header " + c.header_version + " ≠ library " + c.library_versions.front());
    return fmt::format("cuDNN {}  {}  {}", c.version, c.path, join(tail, " · ", true));
}

std::string describe(const snapshot::Framework& fw) {
    std::string cuda;
    if (!fw.cuda) cuda = fw.name == "triton" ? "" : "CPU-only build";
    else if (fw.cuda->empty()) cuda = "CUDA build";
    else cuda = "CUDA " + *fw.cuda;
    std::vector<std::string> tail = {cuda, fw.cudnn.empty() ? "" : "cuDNN " + fw.cudnn, fw.python};
    return fmt::format("{} {}  {}", fw.name, fw.version.empty() ? "?" : fw.version, join(tail, " · ", true));
}

std::string describe(const snapshot::ProbeNote& note) {
    const bool has_path = !note.path.empty() && !note.message.starts_with(note.path);
    return text::printable(has_path ? note.path + ": " + note.message : note.message, 400);
}

std::string describe_kernel_module(const snapshot::Driver& d) {
    if (!d.kernel_module_version.empty())
        return fmt::format("kernel module {} ({}){}", d.kernel_module_version,
                           d.flavour == snapshot::ModuleFlavour::unknown ? "flavour unknown" : snapshot::to_string(d.flavour),
                           d.loaded_modules.empty() ? "" : " · loaded: " + join(d.loaded_modules, ", ", true));
    if (d.modules_known == std::optional<bool>(false)) return "kernel module: unknown (no /proc/modules, no /sys/module)";
    std::string loaded = d.loaded_modules.empty() ? "" : " · loaded: " + join(d.loaded_modules, ", ", true);
    return "no nvidia kernel module loaded" + loaded;
}

std::string describe_user_space(const snapshot::Driver& d) {
    if (d.libraries.empty()) return "no user-space driver libraries (libcuda, libnvidia-ml)";
    std::vector<std::string> names;
    for (const auto& l : d.libraries) names.push_back(l.path);
    return fmt::format("user space {}: {}",
                       d.user_space_versions.empty() ? "(version not in file names)" : join(d.user_space_versions, ", ", true),
                       join(names, ", ", true));
}

std::string describe_max_cuda(const snapshot::Driver& d) {
    if (d.max_cuda.empty()) return {};
    return fmt::format("runs CUDA ≤ {} (the driver's limit, what nvidia-smi calls \"CUDA Version\" — not an installed toolkit){}",
                       d.max_cuda, d.max_cuda_source == "override" ? " [override]" : "");
}

std::string describe_windows_driver(const snapshot::Driver& d) {
    if (d.windows_version.empty()) return {};
    return fmt::format("Windows driver {} serves the GPU (WSL2: no Linux driver belongs inside)", d.windows_version);
}

std::string describe_no_gpu(const snapshot::Snapshot& snap) {
    if (snap.platform.wsl_gpu) return "the GPU is Windows': WSL2 shows it through /dev/dxg, not on a PCI bus";
    return "no NVIDIA GPU on the PCI bus";
}

std::string describe_platform(const snapshot::Platform& p) {
    std::string os = p.os_pretty.empty() ? join({p.os_id, p.os_version}, " ", true) : p.os_pretty;
    std::vector<std::string> parts = {os.empty() ? "unknown OS (no os-release)" : os, p.kernel.empty() ? "" : "kernel " + p.kernel, p.arch,
                                      p.glibc.empty() ? "" : "glibc " + p.glibc};
    return join(parts, " · ", true);
}

/// "NVIDIA Container Toolkit 1.16.2-1 (Docker runtime: nvidia)"; "" without the toolkit.
std::string container_toolkit_label(const snapshot::Platform& p) {
    if (p.container_toolkit_version.empty()) return {};
    const std::string version = p.container_toolkit_version == "unknown" ? "(version unknown)" : p.container_toolkit_version;
    return "NVIDIA Container Toolkit " + version + (p.docker_nvidia_runtime ? " (Docker runtime: nvidia)" : "");
}

std::string describe_platform_details(const snapshot::Platform& p) {
    std::vector<std::string> gcc;
    for (int g : p.gcc_installed) gcc.push_back(std::to_string(g));
    std::vector<std::string> parts = {p.gcc_default ? fmt::format("gcc {} (installed: {})", *p.gcc_default, join(gcc, ", ", true))
                                                    : "no gcc found",
                                      p.wsl ? "WSL2" : "",
                                      p.container.empty() ? "" : "container: " + p.container,
                                      p.virtualization.empty() ? "" : "virtual machine: " + p.virtualization,
                                      container_toolkit_label(p),
                                      "Secure Boot " + (p.secure_boot.empty() ? std::string("unknown") : p.secure_boot)};
    return join(parts, " · ", true);
}

}  // namespace cudoctor::report::detail
