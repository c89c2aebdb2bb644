#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/version.hpp"

/// The knowledge base: the data/*.tsv fact tables (compiled in, overridable with --kb DIR) and
/// small typed queries over them. Every query is pure and answers nullopt / empty for what the
/// tables do not know; none of them throws.
namespace cudoctor::kb {

/// A GPU model as the rules need it.
struct GpuInfo {
    std::string name;                ///< "GeForce RTX 4090"
    std::string architecture;        ///< "Ada Lovelace"
    std::string chip;                ///< "AD102"
    std::string compute_capability;  ///< "8.9"
};

/// One row of gpus.tsv: a PCI device ID (or, for Jetson, an integrated GPU without one).
struct GpuModel {
    std::optional<std::pair<std::uint16_t, std::uint16_t>> pci_id;  ///< {0x10de, 0x2684}
    GpuInfo info;
    std::string category;                   ///< "GeForce 40 (Ada Lovelace)"
    bool in_debian12_pciids = false;        ///< Debian 12's lspci names it (else "Device xxxx")
    std::vector<std::string> driver_names;  ///< names the NVIDIA driver reports
    std::string confidence;
    std::string note;
};

/// One row of gpu_chips.tsv: a chip-codename prefix ("AD10", "GA100") and what it implies.
struct GpuChip {
    std::string prefix;
    std::string architecture;
    std::string compute_capability;
    std::string examples;
    std::string confidence;
    std::string note;
};

/// Which of Table 3's driver columns a driver is read against: a Linux driver, or the Windows
/// driver a WSL2 machine runs on (its own numbers: CUDA 12.4 needs 550.54.14 on Linux, 551.61 on
/// Windows).
enum class DriverOs { linux_driver, windows_driver };

/// One NVIDIA download whose checksum is published (installer_checksums.tsv): a CUDA runfile or a
/// cuDNN archive, by its file name as NVIDIA names it.
struct InstallerChecksum {
    std::string file;     ///< "cuda_12.4.1_550.54.15_linux.run"
    std::string kind;     ///< "cuda-runfile" | "cudnn-archive"
    std::string release;  ///< "12.4.1", "9.1.0.70"
    std::string sha256;   ///< lower-case hex, or ""
    std::string md5;      ///< lower-case hex, or ""
    std::string source;   ///< where the value was read
};

/// One row of cuda_driver.tsv: a toolkit release and the driver it needs.
struct ToolkitRelease {
    Version toolkit;                          ///< the release: 12.4.1
    std::string label;                        ///< "CUDA 12.4 Update 1" (Table 3)
    std::optional<Version> min_linux_driver;  ///< Table 3, x86_64 Linux
    std::optional<Version> min_windows_driver;
    std::string driver_branch;                        ///< "R550"
    std::optional<Version> minor_compat_floor_linux;  ///< minor-version compatibility floor of the major
    std::optional<Version> minor_compat_floor_windows;
    std::string runfile;                    ///< "cuda_12.4.1_550.54.15_linux.run"
    std::optional<Version> runfile_driver;  ///< the driver the runfile bundles
    std::string confidence;
    std::string note;
};

/// One row of cuda_components.tsv: a component version one toolkit release shipped.
struct ComponentRelease {
    std::string component;  ///< version.json's key: "cuda_nvcc", "cuda_cudart"
    Version version;        ///< 12.6.77
    Version release;        ///< 12.6.2
    std::string source;
};

/// One row of cuda_gcc.tsv: nvcc's host-compiler limits from `toolkit_from` to the next row.
struct HostCompilerLimits {
    Version toolkit_from;
    std::string releases;  ///< the releases the row was read for ("11.4.1-11.4.4")
    std::optional<int> max_gcc;
    std::optional<int> max_clang;
    std::optional<int> min_gcc;
    std::optional<int> min_clang;
    std::string confidence;
    std::string note;
};

/// One row of cuda_arch_support.tsv: which toolkits compile for an architecture.
struct ArchSupport {
    std::string sm;                  ///< "sm_89"
    std::string compute_capability;  ///< "8.9"
    std::string architecture;        ///< "Ada Lovelace"
    std::string example_products;
    std::optional<Version> first_cuda;
    std::optional<Version> last_cuda;  ///< unset: still supported (or unknown while first_cuda is unset)
    std::optional<Version> deprecated_in;
    std::optional<Version> removed_in;
    std::optional<bool> nvcc_13_0_accepts;
    std::string confidence;
    std::string note;
};

/// One row of driver_kernel_modules.tsv.
struct KernelModules {
    std::string architecture;
    bool open = false;                 ///< the open kernel module (nvidia-driver-NNN-open) works
    bool proprietary = false;          ///< the proprietary module works
    std::optional<int> driver_branch;  ///< the newest branch supporting it: the one to install (580, 470)
    std::string note;
};

/// One row of cudnn_cuda.tsv: a cuDNN release range built for a CUDA range.
struct CudnnCudaSupport {
    Version cudnn_first;
    Version cudnn_last;
    std::string package_variant;  ///< "for CUDA 12.x", "cuda11 archive"
    Version cuda_min;             ///< compared at the precision written: 11.2.1 needs 11.2 Update 1
    Version cuda_max;             ///< 12 = any 12.x, 11.7 = any 11.7.x
    std::optional<bool> static_linking;
    std::optional<Version> min_linux_driver;
    std::optional<Version> min_windows_driver;
    std::string cc_min;  ///< lowest compute capability ("" unknown)
    std::string cc_max;  ///< highest ("" = and newer, or unknown)
    std::string source;
    std::string confidence;
    std::string note;

    /// True when `cuda` (any precision: 12, 12.4, 12.4.131) lies in cuda_min..cuda_max.
    bool covers_cuda(const Version& cuda) const;
};

/// One row of pytorch_cuda.tsv: a PyTorch release's wheel for one CUDA variant.
struct TorchWheel {
    Version torch;        ///< release series: 2.4
    std::string variant;  ///< "cu124" (index https://download.pytorch.org/whl/cu124)
    Version cuda;         ///< 12.4
    std::string status;   ///< "stable", "experimental" or "" (not in the release matrix)
    std::optional<Version> bundled_cudnn;
    std::vector<std::string> cuda_archs;  ///< compute capabilities with SASS ("7.5", "8.0", …); empty = unknown
    bool ptx = false;                     ///< PTX of the last arch is included too ("12.0+PTX")
    std::vector<std::string> cuda_archs_aarch64;
    bool ptx_aarch64 = false;
    bool pypi_default = false;  ///< the plain `pip install torch` wheel on Linux
    std::string python;
    std::string cxx_standard;
    std::string release_date;
    std::string confidence;
    std::string note;
};

/// One row of tensorflow_cuda.tsv: the tested build configuration of a TensorFlow release.
struct TensorflowBuild {
    Version tensorflow;    ///< 2.16.1
    std::string package;   ///< "tensorflow" or "tensorflow_gpu"
    std::string platform;  ///< "Linux" or "Windows"
    std::string python;
    std::string compiler;
    std::string build_tools;
    Version cudnn;  ///< as printed: 8.9, 9.3, 7
    Version cuda;   ///< 12.3, 11.2, 9
    std::string note;
};

/// One row of distro_releases.tsv.
struct DistroRelease {
    std::string distro;    ///< os-release ID: "ubuntu", "debian"
    std::string version;   ///< os-release VERSION_ID: "22.04", "12"
    std::string codename;  ///< "jammy"
    std::optional<int> default_gcc;
    std::string cuda_repo;                    ///< "ubuntu2204" ("" unknown)
    std::optional<int> distro_driver_branch;  ///< the branch of the release's own nvidia-driver package (Debian 12: 535)
    std::string confidence;
    std::string note;
};

/// One row of jax_cuda.tsv: a JAX release range and one of its CUDA extras ("cuda12").
struct JaxBuild {
    Version jax_first;
    Version jax_last;
    std::string extra;   ///< "cuda12": pip install "jax[cuda12]==<release>"
    Version cuda_built;  ///< 12.3 (or 12 where the minor is not published)
    Version cuda_min;    ///< the oldest CUDA its version check accepts
    std::optional<Version> cudnn_built;
    std::optional<Version> min_linux_driver;
    std::string cc_min;  ///< oldest compute capability ("5.2"; "" unknown)
    std::string confidence;
    std::string note;
};

/// One row of cuda_repos.tsv: the toolkit minors NVIDIA's apt repository for a distribution carries.
struct CudaRepository {
    std::string repo;  ///< "ubuntu2404", "wsl-ubuntu"
    Version first_cuda;
    std::optional<Version> last_cuda;  ///< unset = still published
    std::string confidence;
    std::string note;

    /// True when cuda-toolkit-X-Y of `cuda` (compared at major.minor) is published there.
    bool publishes(const Version& cuda) const;
};

/// One row of package_names.tsv: a package name or command template with {placeholders}.
struct PackageTemplate {
    std::string name;  ///< "cuda_toolkit"
    std::string text;  ///< "cuda-toolkit-{major}-{minor}"
    std::string repository;
    std::optional<bool> pulls_driver;
    std::string confidence;
    std::string note;
};

class Kb {
  public:
    /// The embedded tables; each replaced by DIR/<same file name> when `override_dir` is given and
    /// that file exists (a user drops in a newer table without a new build); other files in DIR
    /// are ignored. Errc::parse naming the file and line for a malformed table (wrong column
    /// count, bad version); Errc::not_found when DIR is not a directory; Errc::io / too_large when
    /// an override cannot be read.
    [[nodiscard]] static Expected<Kb> load(const std::optional<std::string>& override_dir = std::nullopt);
    /// The table-loaded KB, cached: load() of the embedded tables once. (Never fails in practice:
    /// a test proves the embedded tables parse; if they did not, this aborts with the error.)
    static const Kb& builtin();

    // --- GPUs -------------------------------------------------------------------------------
    /// The GPU of a PCI vendor:device ID from gpus.tsv; nullopt when unknown. An ID shared by two
    /// products (Quadro RTX 6000/8000, A2/A16) answers one row naming both.
    std::optional<GpuInfo> gpu_by_pci_id(std::uint16_t vendor, std::uint16_t device) const;
    /// From a pci.ids device name like "AD106 [GeForce RTX 4060 Ti]" or "GH100 [H100 SXM5 80GB]":
    /// chip AD106, name "GeForce RTX 4060 Ti", architecture + compute capability from
    /// gpu_chips.tsv. nullopt when the chip is unknown. (The caller keeps non-GPU functions such
    /// as "TU104 HD Audio Controller" out by PCI class.)
    std::optional<GpuInfo> gpu_from_pci_ids_name(std::string_view pci_ids_name) const;
    /// The gpu_chips.tsv row whose prefix is the longest match of `chip` ("GA102GL" → GA10).
    std::optional<GpuChip> gpu_chip(std::string_view chip) const;
    /// Which kernel-module flavours an architecture ("Turing") can use; nullopt when not listed.
    std::optional<KernelModules> kernel_modules_for(std::string_view architecture) const;
    /// The newest branch driver_kernel_modules.tsv recommends for any architecture (580): what to
    /// install when the GPU's architecture is unknown. nullopt for an empty table.
    std::optional<int> newest_driver_branch() const;

    // --- CUDA toolkit ↔ driver --------------------------------------------------------------
    /// Highest CUDA toolkit (major.minor) whose minimum Linux driver is <= driver, e.g.
    /// 550.54.14 → 12.4, 535.104.05 → 12.2, 580.65.06 → 13.0. nullopt below every row. With
    /// DriverOs::windows_driver, Table 3's Windows column (the driver WSL2 runs on): 551.86 → 12.4.
    std::optional<Version> max_cuda_for(const Version& driver, DriverOs os = DriverOs::linux_driver) const;
    /// Minimum Linux x86_64 driver of a toolkit (12.4.131 → the row for 12.4.1 if present, else
    /// 12.4's first row): among the releases of the same major.minor that name a driver, the
    /// exact release, else the highest release below it, else the first. nullopt for an unknown
    /// major.minor. Pass the release version (version.json "12.4.1") where known: an nvcc build
    /// number (12.4.99 is 12.4.0's nvcc) maps to the highest release below it.
    std::optional<Version> min_driver_for(const Version& toolkit, DriverOs os = DriverOs::linux_driver) const;
    /// The cuda_driver.tsv row of a toolkit, chosen as min_driver_for() does but also among rows
    /// without a driver (runfile name, branch). nullopt for an unknown major.minor.
    std::optional<ToolkitRelease> toolkit_release(const Version& toolkit) const;
    /// The releases that shipped `component` ("cuda_nvcc", "cuda_cudart") at exactly `version`,
    /// ascending: nvcc 12.6.77 → {12.6.2}, cudart 12.6.77 → {12.6.2, 12.6.3}. Empty when
    /// cuda_components.tsv does not know that version (the caller must then not guess a release).
    std::vector<Version> releases_with_component(std::string_view component, const Version& version) const;
    /// Minor-version-compatibility floor of a CUDA major: 11 → 450.80.02, 12 → 525.60.13,
    /// 13 → 580; nullopt for majors without it (10 and older).
    std::optional<Version> minor_compat_floor(int cuda_major, DriverOs os = DriverOs::linux_driver) const;

    // --- host compiler -----------------------------------------------------------------------
    /// nvcc's host-compiler limits for a toolkit (same row choice as min_driver_for()).
    std::optional<HostCompilerLimits> host_compiler_limits(const Version& toolkit) const;
    /// Highest gcc major nvcc of `toolkit` accepts: 12.4 → 13, 11.4.0 → 10, 11.4.1 → 11.
    std::optional<int> max_gcc_for(const Version& toolkit) const;
    std::optional<int> max_clang_for(const Version& toolkit) const;

    // --- architectures -----------------------------------------------------------------------
    struct CudaRange {
        Version first;
        std::optional<Version> last;  ///< unset = still supported
    };
    /// Which toolkits can compile for compute capability "8.9" (or "sm_89", "9.0a"): first..last.
    /// nullopt when the capability is unknown or its first toolkit is not known.
    std::optional<CudaRange> toolkits_supporting(std::string_view compute_capability) const;
    /// The cuda_arch_support.tsv row of "8.9" or "sm_89".
    std::optional<ArchSupport> arch_support(std::string_view compute_capability) const;

    // --- cuDNN -------------------------------------------------------------------------------
    /// The cudnn_cuda.tsv rows whose cuDNN range holds `cudnn` (9.1.0.70 matches 9.1.0); empty
    /// when the release is not in the table.
    std::vector<CudnnCudaSupport> cudnn_builds(const Version& cudnn) const;
    /// The CUDA majors a cuDNN release has builds for (8.9.5 → {11, 12}); empty when unknown.
    std::vector<int> cuda_majors_for_cudnn(const Version& cudnn) const;
    /// Whether a cuDNN release supports a CUDA toolkit (12.4 or 12.4.1); nullopt when the cuDNN
    /// release is not in the table.
    std::optional<bool> cudnn_supports_cuda(const Version& cudnn, const Version& cuda) const;
    /// The newest cuDNN release built for CUDA `cuda` (10.0, 12, 12.4.1); nullopt when none is.
    std::optional<Version> newest_cudnn_for(const Version& cuda) const;

    // --- frameworks --------------------------------------------------------------------------
    /// The CUDA wheels of a PyTorch release ("2.4.1+cu121" parsed as 2.4.1 → the 2.4 rows), in
    /// table order; empty when the release is unknown.
    std::vector<TorchWheel> torch_wheels(const Version& torch) const;
    /// One wheel of a release by variant ("cu121"); nullopt when that wheel is not listed.
    std::optional<TorchWheel> torch_wheel(const Version& torch, std::string_view variant) const;
    /// The tested build of a TensorFlow release on "Linux" or "Windows": the exact release, else
    /// the highest of the same major.minor below it, else that minor's first (2.16.2 → 2.16.1).
    std::optional<TensorflowBuild> tensorflow_tested_build(const Version& tensorflow, std::string_view platform = "Linux") const;

    /// The jax_cuda.tsv rows whose release range holds `jax` (0.4.30 → its cuda12 row), in table
    /// order; empty when the release is unknown.
    std::vector<JaxBuild> jax_builds(const Version& jax) const;

    // --- distributions and packages ----------------------------------------------------------
    /// The cuda_repos.tsv row of a repository name ("ubuntu2204", "wsl-ubuntu"); nullopt when unknown.
    std::optional<CudaRepository> cuda_repository(std::string_view repo) const;
    /// The distro_releases.tsv row of os-release ID and VERSION_ID ("ubuntu", "22.04").
    std::optional<DistroRelease> distro_release(std::string_view distro, std::string_view version) const;
    /// The default gcc major of a release: ubuntu 22.04 → 11, debian 12 → 12.
    std::optional<int> default_gcc_of(std::string_view distro, std::string_view version) const;
    std::optional<PackageTemplate> package_template(std::string_view name) const;
    /// A package name or command from package_names.tsv with its {placeholders} filled:
    /// package_name("cuda_toolkit", {{"major","12"},{"minor","4"}}) == "cuda-toolkit-12-4".
    /// nullopt when the name is unknown or a placeholder has no value.
    std::optional<std::string> package_name(std::string_view name, const std::map<std::string, std::string>& values) const;

    // --- the tables themselves ---------------------------------------------------------------
    /// Every table's file name and the text of its "# source:" line, sorted by name, for
    /// `cudoctor rules`/`--kb` and the docs.
    std::vector<std::pair<std::string, std::string>> sources() const;
    /// File names of the tables that came from the override directory (empty without one).
    std::vector<std::string> overridden_tables() const;

    const std::vector<GpuModel>& gpus() const;
    const std::vector<GpuChip>& gpu_chips() const;
    const std::vector<ToolkitRelease>& toolkit_releases() const;
    const std::vector<ComponentRelease>& component_table() const;
    const std::vector<HostCompilerLimits>& host_compiler_table() const;
    const std::vector<ArchSupport>& arch_table() const;
    const std::vector<CudnnCudaSupport>& cudnn_table() const;
    const std::vector<TorchWheel>& torch_table() const;
    const std::vector<TensorflowBuild>& tensorflow_table() const;
    const std::vector<DistroRelease>& distro_table() const;
    const std::vector<PackageTemplate>& package_table() const;
    /// The published checksums of the NVIDIA download named `file_name` (its base name), or nullptr.
    const InstallerChecksum* installer_checksum(std::string_view file_name) const;
    const std::vector<KernelModules>& kernel_module_table() const;
    const std::vector<JaxBuild>& jax_table() const;
    const std::vector<CudaRepository>& cuda_repository_table() const;

    struct Data;                         // defined in kb/kb_data.hpp
    enum class TableId : unsigned char;  // one per table the KB reads (kb/kb_data.hpp)

  private:
    explicit Kb(std::shared_ptr<Data> data) : m_data(std::move(data)) {}
    /// The tables with `id` read: an embedded table is parsed on its first use (a command reads
    /// only the tables it asks about); an override was read and checked by load().
    const Data& tables(TableId id) const;
    /// Shared by copies; the embedded tables it has not read yet are filled in on first use
    /// (once, thread-safe), which no caller can tell from reading them all at load().
    std::shared_ptr<Data> m_data;
};

}  // namespace cudoctor::kb
