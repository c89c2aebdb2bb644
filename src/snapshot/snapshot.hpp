#pragma once
// The Snapshot: plain data describing one machine's CUDA stack, the single source of truth for
// everything after the probes. Versioned JSON with a lossless round trip (snapshot_json.hpp).
// Strings are empty and optionals unset where a fact is unknown; the evidence lists say which
// file or command each fact came from ("/proc/driver/nvidia/version", "nvcc --version").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/version.hpp"
#include "snapshot/kinds.hpp"

namespace cudoctor::snapshot {

inline constexpr int kSchemaVersion = 1;

/// A fact's provenance: where it was read ("/usr/local/cuda-12.4/version.json") and, optionally,
/// what was read there ("cuda_nvcc.version = 12.4.131").
struct Evidence {
    std::string source;
    std::string detail;
    friend bool operator==(const Evidence&, const Evidence&) = default;
};

/// A probe's trouble reading something: an unreadable file, a garbage version file, a child
/// process that timed out. Rendered as a clear line; never fatal.
struct ProbeNote {
    std::string probe;    ///< "toolkit", "driver", …
    std::string path;     ///< the file or command concerned
    std::string message;  ///< one line for the user
    friend bool operator==(const ProbeNote&, const ProbeNote&) = default;
};

struct Gpu {
    std::string bus_id;              ///< "0000:01:00.0"
    std::string pci_device_id;       ///< "10de:2803"
    std::string pci_class;           ///< "0x030000"
    std::string subsystem_id;        ///< "1043:88ac" where known
    std::string name;                ///< "GeForce RTX 4060 Ti", or "" when unknown
    std::string chip;                ///< "AD106"
    std::string architecture;        ///< "Ada Lovelace"
    std::string compute_capability;  ///< "8.9"
    std::string name_source;         ///< "kb" | "pci.ids" | "" (unknown device)
    std::string bound_driver;        ///< kernel driver bound to it: "nvidia", "nouveau", "vfio-pci", ""
    std::vector<Evidence> evidence;
    friend bool operator==(const Gpu&, const Gpu&) = default;
};

struct DriverLibrary {
    std::string name;     ///< "libcuda.so", "libnvidia-ml.so"
    std::string path;     ///< "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"
    std::string version;  ///< "550.54.14", from the file name
    friend bool operator==(const DriverLibrary&, const DriverLibrary&) = default;
};

/// A driver package change from the package logs (dpkg.log, apt history).
struct PackageEvent {
    std::string when;     ///< "2024-06-12 06:41:26"
    std::string action;   ///< install | upgrade | remove | purge
    std::string package;  ///< "libnvidia-compute-545"
    std::string old_version;
    std::string new_version;
    std::string by;      ///< apt's Commandline ("/usr/bin/unattended-upgrade") where known
    std::string source;  ///< "/var/log/apt/history.log" | "/var/log/dpkg.log"
    friend bool operator==(const PackageEvent&, const PackageEvent&) = default;
};

struct Driver {
    std::string kernel_module_version;  ///< "550.54.14"; "" when no module is loaded
    ModuleFlavour flavour = ModuleFlavour::unknown;
    std::string kernel_module_compiler;            ///< the "GCC version:" line, when present
    std::optional<bool> modules_known;             ///< false when /proc/modules is unreadable
    std::vector<std::string> loaded_modules;       ///< nvidia, nvidia_uvm, nvidia_drm, nvidia_modeset, nouveau
    std::vector<std::string> user_space_versions;  ///< distinct versions of libcuda / libnvidia-ml
    std::vector<DriverLibrary> libraries;
    std::string max_cuda;                      ///< highest CUDA this driver runs ("12.4"), from the KB
    std::string max_cuda_source;               ///< "kb:cuda_driver.tsv" or "override"
    std::vector<PackageEvent> package_events;  ///< the latest driver package changes, oldest first
    std::vector<std::string> packages;         ///< installed driver packages ("nvidia-driver-550 550.54.14-0ubuntu1")
    /// Under WSL2, the Windows driver that serves the GPU, in NVIDIA's numbering ("551.86"), read
    /// from its driver store (/usr/lib/wsl/drivers/<inf>_amd64_<hash>/<inf>'s DriverVer
    /// 31.0.15.5186); "" elsewhere or when unreadable. Its CUDA limit comes from Table 3's Windows
    /// column, never the Linux one.
    std::string windows_version;
    std::vector<Evidence> evidence;
    friend bool operator==(const Driver&, const Driver&) = default;
};

/// One separately versioned part of a toolkit: "cuda_nvcc" 12.6.77, "cuda_cudart" 12.6.77 (the keys
/// version.json uses; wheels, packages and `nvcc --version` map to the same names).
struct ToolkitComponent {
    std::string name;
    std::string version;
    friend bool operator==(const ToolkitComponent&, const ToolkitComponent&) = default;
};

/// A toolkit has a *release* (12.6.2: NVIDIA's tables, runfile names, package versions) and
/// *component* versions (nvcc 12.6.77). `version` stays what nvcc reports; compare against release
/// tables with the release, or the releases the components map to (kb/toolkit_release.hpp).
struct Toolkit {
    std::string version;         ///< "12.4.131" (nvcc's component version where known), or as precise as known ("13.0")
    std::string version_source;  ///< "version.json" | "version.txt" | "dist-info" | "cuda.h" | "nvcc" | "dpkg" | "conda-meta"
    std::string release;         ///< "12.6.2": version.json's "cuda", a cuda-toolkit-X-Y package, conda's cudatoolkit; "" when unknown
    std::string release_source;  ///< where the release was read ("version.json", "dpkg", "conda-meta/…")
    std::vector<ToolkitComponent> components;  ///< what each component says ("cuda_nvcc" 12.6.77, "cuda_cudart" 12.6.77)
    std::string path;                          ///< "/usr/local/cuda-12.4" (as found, real path inside the root)
    InstallMethod install_method = InstallMethod::unknown;
    bool has_nvcc = false;
    std::string nvcc_path;
    bool is_default = false;             ///< /usr/local/cuda points here
    bool first_on_path = false;          ///< its nvcc is the one PATH finds first
    bool on_path = false;                ///< its bin/ is on PATH at all
    std::optional<int> max_gcc;          ///< newest host gcc major it accepts
    std::string max_gcc_source;          ///< "include/crt/host_config.h" | "kb:cuda_gcc.tsv"
    std::vector<std::string> found_by;   ///< "/usr/local/cuda-*", "PATH", "CUDA_HOME", "dpkg", …
    std::string lib_dir;                 ///< canonical folder holding its libcudart ("" when none)
    std::string cudart_soname;           ///< "libcudart.so.12" where a libcudart is there
    bool cudart_loader_visible = false;  ///< that folder is in the loader cache or on LD_LIBRARY_PATH
    std::vector<Evidence> evidence;
    friend bool operator==(const Toolkit&, const Toolkit&) = default;
};

/// A toolkit a user installed to compile with: not the runtime tree of a pip wheel (…/nvidia/…),
/// not a conda environment's runtime.
inline bool is_system_toolkit(const Toolkit& tk) {
    return tk.install_method != InstallMethod::conda &&
           !(tk.install_method == InstallMethod::pip && tk.path.find("/nvidia/") != std::string::npos);
}

/// One cuDNN library's name chain (libcudnn_ops.so → .so.9 → .so.9.1.0) where names that should
/// be symbolic links are full copies of the real file (a tar copied without `cp -P`).
struct CudnnFlattenedChain {
    std::string real_file;            ///< the most precise name, "libcudnn_ops.so.9.1.0"
    std::vector<std::string> names;   ///< the chain, most precise first: "libcudnn_ops.so.9.1.0", "libcudnn_ops.so.9", …
    std::vector<std::string> copies;  ///< the names of `names` that are copies of real_file, not links
    std::uint64_t size = 0;           ///< real_file's size in bytes (each copy is as large)
    friend bool operator==(const CudnnFlattenedChain&, const CudnnFlattenedChain&) = default;
};

struct Cudnn {
    std::string version;                        ///< "9.1.0"
    std::string path;                           ///< the library folder (or header folder when no library)
    std::string header_version;                 ///< from cudnn_version.h, "" when no header
    std::vector<std::string> library_versions;  ///< from libcudnn.so.X.Y.Z names / dist-info
    std::string location;                       ///< toolkit | system | pip | conda
    std::string cuda_major;                     ///< "12"; "" when unknown
    bool loader_visible = false;                ///< in the loader cache or on LD_LIBRARY_PATH
    /// Chains in `path` whose links were copied as files; empty in snapshots written before it.
    std::vector<CudnnFlattenedChain> flattened;
    std::vector<Evidence> evidence;
    friend bool operator==(const Cudnn&, const Cudnn&) = default;
};

struct Framework {
    std::string name;                        ///< "torch", "tensorflow", "jax", "jaxlib", "cupy", "onnxruntime", "triton"
    std::string version;                     ///< "2.4.0+cu121"
    std::optional<std::string> cuda;         ///< "12.1"; nullopt for a CPU build
    std::string cudnn;                       ///< the cuDNN it was built with or depends on, when known
    std::string python;                      ///< the site-packages folder it was found in
    std::string interpreter;                 ///< the python that uses that folder, when known
    std::vector<std::string> cuda_archs;     ///< "sm_80", … where the build says
    std::vector<std::string> nvidia_wheels;  ///< "nvidia-cudnn-cu12==9.1.0.70", from Requires-Dist
    std::vector<Evidence> evidence;
    /// The GPU code its largest CUDA library really carries, read from the fatbin headers of
    /// binary_archs_source: "sm_80", "sm_90a", "compute_90". Empty when no library was found
    /// (the rules then fall back to the KB) or when that library carries no GPU code (a note
    /// says so).
    std::vector<std::string> binary_archs;
    std::string binary_archs_source;  ///< that library ("…/torch/lib/libtorch_cuda.so"), "" when none
    friend bool operator==(const Framework&, const Framework&) = default;
};

/// A Python interpreter and the site folder it imports from (found without running it).
struct Python {
    std::string interpreter;   ///< "/usr/bin/python3", "" for a conda env without one
    std::string version;       ///< "3.11"
    std::string site;          ///< canonical site-packages / dist-packages folder
    bool has_headers = false;  ///< Python.h for that version exists (C extensions, Triton, torch.compile)
    friend bool operator==(const Python&, const Python&) = default;
};

/// One LD_LIBRARY_PATH entry, in order.
struct LibraryPathEntry {
    std::string path;
    bool exists = false;
    bool empty = false;                       ///< an empty entry: the current directory
    std::string real_path;                    ///< the folder with links resolved ("" when missing)
    std::vector<std::string> cuda_libraries;  ///< CUDA libraries it brings ("libcudart.so.12")
    friend bool operator==(const LibraryPathEntry&, const LibraryPathEntry&) = default;
};

/// A top-level assignment in a shell start-up file (~/.bashrc, /etc/profile.d/*, /etc/environment)
/// to PATH, LD_LIBRARY_PATH or CUDA_LAUNCH_BLOCKING, or to any variable naming /usr/local/cuda*.
struct StartupLine {
    std::string file;        ///< machine path: "/home/dev/.bashrc"
    int line = 0;            ///< 1-based
    std::string text;        ///< the line as written
    std::string name;        ///< the variable it sets
    std::string value;       ///< quotes removed, ~ and $HOME replaced by the home
    bool keeps_old = false;  ///< the value refers to the variable's old value
    /// PATH lines that append a toolkit's bin folder after the old PATH: the other nvcc a folder
    /// before it holds (first found), "" when none does. `appended_dir` is that bin folder.
    std::string nvcc_before;
    std::string appended_dir;
    std::vector<std::string> missing_toolkits;  ///< /usr/local/cuda-X.Y folders it names that do not exist
    friend bool operator==(const StartupLine&, const StartupLine&) = default;
};

/// One CUDA-related entry of the loader cache (/etc/ld.so.cache).
struct LoaderEntry {
    std::string soname;    ///< "libcudart.so.12"
    std::string path;      ///< "/usr/local/cuda-12.4/lib64/libcudart.so.12"
    std::string arch;      ///< "x86-64"
    std::string real_dir;  ///< its folder with links resolved (two entries may be one folder)
    friend bool operator==(const LoaderEntry&, const LoaderEntry&) = default;
};

struct Environment {
    std::vector<std::string> path;               ///< PATH, in order
    std::vector<std::string> nvcc_on_path;       ///< every nvcc PATH reaches, winner first
    std::vector<std::string> nvcc_on_path_real;  ///< the real nvcc each one is (links and wrapper scripts followed)
    std::vector<LibraryPathEntry> ld_library_path;
    std::optional<std::string> cuda_home;
    std::optional<std::string> cuda_path;
    std::optional<std::string> cuda_visible_devices;
    std::string cuda_symlink;  ///< what /usr/local/cuda points to ("" when absent)
    bool cuda_symlink_dangling = false;
    std::vector<std::string> ld_so_conf_dirs;  ///< folders named by /etc/ld.so.conf(.d)
    std::string loader_cache_format;           ///< "new" | "old" | "compat" | "" when unreadable
    std::vector<LoaderEntry> loader_cache;     ///< CUDA libraries in /etc/ld.so.cache
    std::vector<std::string> conda_envs;       ///< conda environments found
    std::optional<std::string> active_conda_env;
    std::optional<std::string> virtual_env;
    std::optional<std::string> cuda_launch_blocking;
    std::vector<StartupLine> startup_lines;  ///< in the order the files were read
    std::vector<Evidence> evidence;
    friend bool operator==(const Environment&, const Environment&) = default;
};

struct DkmsModule {
    std::string module;   ///< "nvidia"
    std::string version;  ///< "550.54.14"
    std::string kernel;   ///< "6.5.0-27-generic"
    bool built_for_running_kernel = false;
    /// The first error line of this version's last build (/var/lib/dkms/<module>/<version>/build/
    /// make.log, left by a failed build); "" when there is none.
    std::string build_error;
    friend bool operator==(const DkmsModule&, const DkmsModule&) = default;
};

/// One repository an apt source file names (formats/apt_sources: one .list line, or one URI x
/// suite of a deb822 stanza), with what the probe saw of the files it points to.
struct AptSource {
    std::string file;  ///< "/etc/apt/sources.list.d/cuda-ubuntu2204-x86_64.list"
    int line = 0;      ///< 1-based
    std::string uri;   ///< "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/"
    std::string suite;
    std::vector<std::string> components;
    std::string signed_by;  ///< the keyring path as written ("" when none)
    bool enabled = true;    ///< false for a deb822 stanza with "Enabled: no"
    /// signed_by is an absolute path that does not exist on the machine (apt: NO_PUBKEY).
    bool signed_by_missing = false;
    /// A file: URI whose folder does not exist (the local repository was deleted).
    bool local_dir_missing = false;
    friend bool operator==(const AptSource&, const AptSource&) = default;
};

/// A dpkg package on hold (/var/lib/dpkg/status "Status: hold ok installed"): apt never upgrades
/// or removes it.
struct HeldPackage {
    std::string name;     ///< "nvidia-driver-535"
    std::string version;  ///< "535.183.01-0ubuntu0.22.04.1"
    friend bool operator==(const HeldPackage&, const HeldPackage&) = default;
};

/// One stanza of /etc/apt/preferences or /etc/apt/preferences.d/*.
struct AptPin {
    std::string file;
    int line = 0;
    std::string package;  ///< "nvidia-*"
    std::string pin;      ///< "version 535.*"
    std::optional<int> priority;
    friend bool operator==(const AptPin&, const AptPin&) = default;
};

struct Platform {
    std::string os_id;               ///< "ubuntu"
    std::string os_version;          ///< "22.04"
    std::string os_pretty;           ///< "Ubuntu 22.04.4 LTS"
    std::string kernel;              ///< "6.5.0-27-generic"
    std::string arch;                ///< "x86_64"
    std::string glibc;               ///< "2.35"
    std::optional<int> gcc_default;  ///< major of /usr/bin/gcc
    std::vector<int> gcc_installed;  ///< every gcc-N found
    std::string c_compiler;          ///< the cc / gcc PATH finds ("" when none)
    bool wsl = false;
    bool wsl_gpu = false;  ///< WSL2 with its GPU device: /dev/dxg and /usr/lib/wsl/lib/libcuda.so* are there
    /// WSL2: the Windows user's .wslconfig (/mnt/c/Users/<name>/.wslconfig) that sets a memory
    /// limit for the virtual machine, the limit in bytes and its line; "" / nullopt / 0 otherwise.
    std::string wslconfig_path;
    std::optional<std::uint64_t> wsl_memory_limit;
    std::size_t wsl_memory_line = 0;
    std::string container;       ///< "docker" | "podman" | … | ""
    std::string virtualization;  ///< "vmware" | "oracle" | "kvm" | "microsoft" | … | "" (none seen)
    std::string secure_boot;     ///< "enabled" | "disabled" | "unsupported" (no EFI) | "unknown"
    std::vector<DkmsModule> dkms;
    std::vector<Evidence> evidence;
    // -- containers (absent from older snapshots: unset, none, false) --
    /// Inside a container: the NVIDIA Container Toolkit's variables of its environment, as set
    /// (nullopt when unset): which GPUs, which driver parts (compute, utility, …) the runtime
    /// mounts, and the image's own driver requirement ("cuda>=12.4 brand=tesla,driver>=470,…").
    std::optional<std::string> nvidia_visible_devices, nvidia_driver_capabilities, nvidia_require_cuda, nvidia_disable_require;
    /// On a host: the NVIDIA Container Toolkit ("" when absent; its dpkg version, else "unknown"
    /// when only its programs or config.toml are there), Docker, and Docker's nvidia runtime entry.
    std::string container_toolkit_version;
    bool docker_installed = false;
    bool docker_nvidia_runtime = false;  ///< /etc/docker/daemon.json names "runtimes": {"nvidia": …}
    std::vector<std::string> cdi_specs;  ///< /etc/cdi/*.yaml|json, /var/run/cdi/*.yaml|json
    // apt (probe/apt.cpp): the sources, the keyring files, held packages and pins.
    std::vector<AptSource> apt_sources;
    std::vector<std::string> apt_keyrings;  ///< keyring files in /usr/share/keyrings (cuda-*), /etc/apt/trusted.gpg.d, /etc/apt/keyrings
    std::vector<HeldPackage> held_packages;
    std::vector<AptPin> apt_pins;
    friend bool operator==(const Platform&, const Platform&) = default;
};

/// A rule's verdict. Empty until rules land, but its shape is fixed.
struct Finding {
    std::string id;  ///< stable: "driver-library-mismatch"
    Severity severity = Severity::info;
    Layer layer = Layer::platform;
    std::string title;
    std::string why;
    std::string fix;  ///< exact commands for this machine
    std::vector<Evidence> evidence;
    std::string consequence_of;  ///< id of the root-cause finding, when this one follows from it
    friend bool operator==(const Finding&, const Finding&) = default;
};

struct Snapshot {
    int schema = kSchemaVersion;
    std::string tool_version;
    std::string root;  ///< "/" or the --root folder
    /// The machine's host name (/proc/sys/kernel/hostname, else /etc/hostname, read through the
    /// Host so a --root image reports its own); "" when neither is readable. Older snapshots
    /// without it load with "".
    std::string hostname;
    /// When the probe ran, UTC ISO-8601 ("2024-06-12T06:41:26Z"); "" in older snapshots.
    std::string taken_at;
    std::vector<std::string> overrides;  ///< active CUDOCTOR_OVERRIDE_* variables
    std::vector<Gpu> gpus;
    Driver driver;
    std::vector<Toolkit> toolkits;
    std::vector<Cudnn> cudnn;
    std::vector<Framework> frameworks;
    std::vector<Python> pythons;
    Environment environment;
    Platform platform;
    std::vector<ProbeNote> notes;
    std::vector<Finding> findings;
    friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

/// The driver version that decides what can run: the loaded kernel module's, else the newest
/// installed user-space library's; nullopt with no driver at all.
inline std::optional<Version> driver_version(const Snapshot& snap) {
    if (auto v = Version::parse(snap.driver.kernel_module_version)) return v;
    if (!snap.driver.user_space_versions.empty()) return Version::parse(snap.driver.user_space_versions.back());
    return std::nullopt;
}

}  // namespace cudoctor::snapshot
