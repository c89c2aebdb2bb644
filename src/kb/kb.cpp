#include "kb/kb.hpp"

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <mutex>

#include "kb/kb_data.hpp"
#include "kb/load_table.hpp"
#include "kb/table.hpp"

namespace cudoctor::kb {

namespace {

using Reader = Expected<void> (*)(const Table&, Kb::Data&);

struct TableReader {
    std::string_view name;
    Reader read;
};

// Every table the KB needs, in Kb::TableId's order; each must be embedded (data/<name>).
constexpr TableReader kReaders[] = {
    {"cuda_arch_support.tsv", detail::read_archs},
    {"cuda_components.tsv", detail::read_components},
    {"cuda_driver.tsv", detail::read_toolkits},
    {"cuda_gcc.tsv", detail::read_compilers},
    {"cuda_repos.tsv", detail::read_repos},
    {"cudnn_cuda.tsv", detail::read_cudnn},
    {"distro_releases.tsv", detail::read_distros},
    {"driver_kernel_modules.tsv", detail::read_kernel_modules},
    {"gpu_chips.tsv", detail::read_gpu_chips},
    {"gpus.tsv", detail::read_gpus},
    {"installer_checksums.tsv", detail::read_checksums},
    {"jax_cuda.tsv", detail::read_jax},
    {"package_names.tsv", detail::read_packages},
    {"pytorch_cuda.tsv", detail::read_torch},
    {"tensorflow_cuda.tsv", detail::read_tensorflow},
};
static_assert(std::size(kReaders) == kTableCount);

/// Parses `text` as table `index` into `data`.
Expected<void> read_table(std::size_t index, std::string_view shown_name, std::string_view text, Kb::Data& data) {
    auto table = Table::parse(shown_name, text);
    if (!table) return Unexpected<Error>(table.error());
    if (auto ok = kReaders[index].read(*table, data); !ok) return Unexpected<Error>(ok.error());
    data.sources[index] = table->source();
    return {};
}

[[noreturn]] void embedded_table_broken(const Error& e) {
    std::fprintf(stderr, "cudoctor: internal error: embedded knowledge base: %s\n", e.message.c_str());
    std::abort();
}

}  // namespace

Expected<Kb> Kb::load(const std::optional<std::string>& override_dir) {
    // Overrides are read and checked here, so a malformed one is an error now, whichever tables
    // the command goes on to ask about. The embedded copies (a test proves every one parses) wait
    // for their first use: `check` on a GPU-less machine never needs gpus.tsv, and nothing needs
    // the checksums but verify-installer.
    auto data = std::make_shared<Data>();
    for (std::size_t i = 0; i < kTableCount; ++i) {
        const auto& reader = kReaders[i];
        auto located = locate_table(reader.name, override_dir);
        if (!located) return Unexpected<Error>(located.error());
        if (!*located) continue;
        auto text = read_override(**located);
        if (!text) return Unexpected<Error>(text.error());
        Expected<void> ok;
        std::call_once(data->read[i], [&] { ok = read_table(i, text->shown_name, text->text, *data); });
        if (!ok) return Unexpected<Error>(ok.error());
        data->overridden.emplace_back(reader.name);
    }
    return Kb(std::move(data));
}

const Kb::Data& Kb::tables(TableId id) const {
    const auto index = static_cast<std::size_t>(id);
    std::call_once(m_data->read[index], [&] {
        const auto& reader = kReaders[index];
        // load() found no override for it, so the compiled-in copy is there.
        if (auto ok = read_table(index, reader.name, *embedded_text(reader.name), *m_data); !ok) embedded_table_broken(ok.error());
    });
    return *m_data;
}

const Kb& Kb::builtin() {
    static const Kb kb = [] {
        auto loaded = load();
        if (!loaded) embedded_table_broken(loaded.error());
        return std::move(*loaded);
    }();
    return kb;
}

std::vector<std::pair<std::string, std::string>> Kb::sources() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i < kTableCount; ++i)
        out.emplace_back(std::string(kReaders[i].name), tables(static_cast<TableId>(i)).sources[i]);
    return out;
}
std::vector<std::string> Kb::overridden_tables() const { return m_data->overridden; }

const std::vector<GpuModel>& Kb::gpus() const { return tables(TableId::gpus).gpus; }
const std::vector<GpuChip>& Kb::gpu_chips() const { return tables(TableId::gpu_chips).gpu_chips; }
const std::vector<ToolkitRelease>& Kb::toolkit_releases() const { return tables(TableId::toolkits).toolkits; }
const std::vector<ComponentRelease>& Kb::component_table() const { return tables(TableId::components).components; }
const std::vector<HostCompilerLimits>& Kb::host_compiler_table() const { return tables(TableId::compilers).compilers; }
const std::vector<ArchSupport>& Kb::arch_table() const { return tables(TableId::archs).archs; }
const std::vector<CudnnCudaSupport>& Kb::cudnn_table() const { return tables(TableId::cudnn).cudnn; }
const std::vector<TorchWheel>& Kb::torch_table() const { return tables(TableId::torch).torch; }
const std::vector<TensorflowBuild>& Kb::tensorflow_table() const { return tables(TableId::tensorflow).tensorflow; }
const std::vector<DistroRelease>& Kb::distro_table() const { return tables(TableId::distros).distros; }
const std::vector<PackageTemplate>& Kb::package_table() const { return tables(TableId::packages).packages; }

const InstallerChecksum* Kb::installer_checksum(std::string_view file_name) const {
    for (const auto& c : tables(TableId::checksums).checksums)
        if (c.file == file_name) return &c;
    return nullptr;
}
const std::vector<KernelModules>& Kb::kernel_module_table() const { return tables(TableId::kernel_modules).kernel_modules; }
const std::vector<JaxBuild>& Kb::jax_table() const { return tables(TableId::jax).jax; }
const std::vector<CudaRepository>& Kb::cuda_repository_table() const { return tables(TableId::repos).repos; }

}  // namespace cudoctor::kb
