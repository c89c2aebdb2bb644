#include "kb/kb.hpp"

#include <cstdio>
#include <cstdlib>

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

// Every table the KB needs; each must be embedded (data/<name>).
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

}  // namespace

Expected<Kb> Kb::load(const std::optional<std::string>& override_dir) {
    auto data = std::make_shared<Data>();
    for (const auto& reader : kReaders) {
        auto text = load_table_text(reader.name, override_dir);
        if (!text) return Unexpected<Error>(text.error());
        auto table = Table::parse(text->shown_name, text->text);
        if (!table) return Unexpected<Error>(table.error());
        if (auto ok = reader.read(*table, *data); !ok) return Unexpected<Error>(ok.error());
        data->sources.emplace_back(std::string(reader.name), table->source());
        if (text->overridden) data->overridden.emplace_back(reader.name);
    }
    return Kb(std::move(data));
}

const Kb& Kb::builtin() {
    static const Kb kb = [] {
        auto loaded = load();
        if (!loaded) {
            std::fprintf(stderr, "cudoctor: internal error: embedded knowledge base: %s\n", loaded.error().message.c_str());
            std::abort();
        }
        return std::move(*loaded);
    }();
    return kb;
}

std::vector<std::pair<std::string, std::string>> Kb::sources() const { return m_data->sources; }
std::vector<std::string> Kb::overridden_tables() const { return m_data->overridden; }

const std::vector<GpuModel>& Kb::gpus() const { return m_data->gpus; }
const std::vector<GpuChip>& Kb::gpu_chips() const { return m_data->gpu_chips; }
const std::vector<ToolkitRelease>& Kb::toolkit_releases() const { return m_data->toolkits; }
const std::vector<ComponentRelease>& Kb::component_table() const { return m_data->components; }
const std::vector<HostCompilerLimits>& Kb::host_compiler_table() const { return m_data->compilers; }
const std::vector<ArchSupport>& Kb::arch_table() const { return m_data->archs; }
const std::vector<CudnnCudaSupport>& Kb::cudnn_table() const { return m_data->cudnn; }
const std::vector<TorchWheel>& Kb::torch_table() const { return m_data->torch; }
const std::vector<TensorflowBuild>& Kb::tensorflow_table() const { return m_data->tensorflow; }
const std::vector<DistroRelease>& Kb::distro_table() const { return m_data->distros; }
const std::vector<PackageTemplate>& Kb::package_table() const { return m_data->packages; }

const InstallerChecksum* Kb::installer_checksum(std::string_view file_name) const {
    for (const auto& c : m_data->checksums)
        if (c.file == file_name) return &c;
    return nullptr;
}
const std::vector<KernelModules>& Kb::kernel_module_table() const { return m_data->kernel_modules; }
const std::vector<JaxBuild>& Kb::jax_table() const { return m_data->jax; }
const std::vector<CudaRepository>& Kb::cuda_repository_table() const { return m_data->repos; }

}  // namespace cudoctor::kb
