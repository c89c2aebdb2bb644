#pragma once
// Internals of Kb: the parsed tables, and the parser of each table family (one .cpp per family).
#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kb/kb.hpp"
#include "kb/table.hpp"

namespace cudoctor::kb {

/// The tables the KB reads, in the order load() looks them up (kb.cpp's kReaders).
enum class Kb::TableId : unsigned char {
    archs,
    components,
    toolkits,
    compilers,
    repos,
    cudnn,
    distros,
    kernel_modules,
    gpu_chips,
    gpus,
    checksums,
    jax,
    packages,
    torch,
    tensorflow,
};
inline constexpr std::size_t kTableCount = 15;

struct Kb::Data {
    std::vector<GpuModel> gpus;
    std::vector<GpuChip> gpu_chips;
    std::vector<KernelModules> kernel_modules;
    std::vector<ToolkitRelease> toolkits;
    std::vector<ComponentRelease> components;
    std::vector<HostCompilerLimits> compilers;
    std::vector<ArchSupport> archs;
    std::vector<CudnnCudaSupport> cudnn;
    std::vector<TorchWheel> torch;
    std::vector<TensorflowBuild> tensorflow;
    std::vector<DistroRelease> distros;
    std::vector<PackageTemplate> packages;
    std::vector<InstallerChecksum> checksums;
    std::vector<JaxBuild> jax;
    std::vector<CudaRepository> repos;
    std::array<std::string, kTableCount> sources;  ///< each table's "# source:" text, once it is read
    std::vector<std::string> overridden;
    /// Each table is read once: by load() for an override, on first use for the embedded copy.
    std::array<std::once_flag, kTableCount> read;
};

namespace detail {

// Unwraps an Expected into `target`, or returns its error from the enclosing function.
#define CUDOCTOR_KB_TRY(target, expr)                                      \
    do {                                                                   \
        auto kb_try_value = (expr);                                        \
        if (!kb_try_value) return Unexpected<Error>(kb_try_value.error()); \
        (target) = std::move(*kb_try_value);                               \
    } while (false)

// Each reads one parsed table into `data`; Errc::parse naming file, line and column on a bad cell.
Expected<void> read_gpus(const Table& table, Kb::Data& data);
Expected<void> read_gpu_chips(const Table& table, Kb::Data& data);
Expected<void> read_kernel_modules(const Table& table, Kb::Data& data);
Expected<void> read_toolkits(const Table& table, Kb::Data& data);
Expected<void> read_components(const Table& table, Kb::Data& data);
Expected<void> read_compilers(const Table& table, Kb::Data& data);
Expected<void> read_archs(const Table& table, Kb::Data& data);
Expected<void> read_cudnn(const Table& table, Kb::Data& data);
Expected<void> read_torch(const Table& table, Kb::Data& data);
Expected<void> read_tensorflow(const Table& table, Kb::Data& data);
Expected<void> read_distros(const Table& table, Kb::Data& data);
Expected<void> read_packages(const Table& table, Kb::Data& data);
Expected<void> read_checksums(const Table& table, Kb::Data& data);
Expected<void> read_jax(const Table& table, Kb::Data& data);
Expected<void> read_repos(const Table& table, Kb::Data& data);

/// The row for `version` among the `keep` rows of the same major.minor (key(row) gives a row's
/// release): the exact one, else the highest below `version`, else the lowest of that minor.
/// Any row order. nullptr when no kept row has that major.minor.
template <class Row, class Key, class Keep>
const Row* release_row(const std::vector<Row>& rows, const Version& version, Key key, Keep keep) {
    const Version minor = version.truncated(2);
    const Row* lowest = nullptr;
    const Row* below = nullptr;
    for (const Row& row : rows) {
        if (!keep(row) || key(row).truncated(2) != minor) continue;
        if (!lowest || key(row) < key(*lowest)) lowest = &row;
        if (key(row) <= version && (!below || key(row) > key(*below))) below = &row;
    }
    return below ? below : lowest;
}

}  // namespace detail
}  // namespace cudoctor::kb
