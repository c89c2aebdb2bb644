#include "kb/kb.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kb/embedded.hpp"
#include "kb/kb_data.hpp"
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
    {"cuda_driver.tsv", detail::read_toolkits},
    {"cuda_gcc.tsv", detail::read_compilers},
    {"cuda_repos.tsv", detail::read_repos},
    {"cudnn_cuda.tsv", detail::read_cudnn},
    {"distro_releases.tsv", detail::read_distros},
    {"driver_kernel_modules.tsv", detail::read_kernel_modules},
    {"gpu_chips.tsv", detail::read_gpu_chips},
    {"gpus.tsv", detail::read_gpus},
    {"jax_cuda.tsv", detail::read_jax},
    {"package_names.tsv", detail::read_packages},
    {"pytorch_cuda.tsv", detail::read_torch},
    {"tensorflow_cuda.tsv", detail::read_tensorflow},
};

constexpr std::uintmax_t kMaxTableBytes = 8u << 20;

Expected<std::string> read_override(const std::filesystem::path& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return fail(Errc::io, "cannot read " + path.string() + ": " + ec.message());
    if (size > kMaxTableBytes) return fail(Errc::too_large, "cannot read " + path.string() + ": too large");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) return fail(Errc::io, "cannot read " + path.string());
    return text.str();
}

}  // namespace

Expected<Kb> Kb::load(const std::optional<std::string>& override_dir) {
    if (override_dir) {
        std::error_code ec;
        if (!std::filesystem::is_directory(*override_dir, ec)) {
            return fail(Errc::not_found, "knowledge-base directory " + *override_dir + " does not exist");
        }
    }
    auto data = std::make_shared<Data>();
    for (const auto& reader : kReaders) {
        std::string text;
        std::string shown_name(reader.name);
        bool overridden = false;
        if (override_dir) {
            const auto path = std::filesystem::path(*override_dir) / reader.name;
            std::error_code ec;
            if (std::filesystem::is_regular_file(path, ec)) {
                auto read = read_override(path);
                if (!read) return Unexpected<Error>(read.error());
                text = std::move(*read);
                shown_name = path.string();
                overridden = true;
            }
        }
        if (!overridden) {
            bool found = false;
            for (const auto& table : embedded_tables()) {
                if (table.name == reader.name) {
                    text = std::string(table.text);
                    found = true;
                }
            }
            if (!found) return fail(Errc::not_found, "table " + std::string(reader.name) + " is not embedded");
        }
        auto table = Table::parse(shown_name, text);
        if (!table) return Unexpected<Error>(table.error());
        if (auto ok = reader.read(*table, *data); !ok) return Unexpected<Error>(ok.error());
        data->sources.emplace_back(std::string(reader.name), table->source());
        if (overridden) data->overridden.emplace_back(reader.name);
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
const std::vector<HostCompilerLimits>& Kb::host_compiler_table() const { return m_data->compilers; }
const std::vector<ArchSupport>& Kb::arch_table() const { return m_data->archs; }
const std::vector<CudnnCudaSupport>& Kb::cudnn_table() const { return m_data->cudnn; }
const std::vector<TorchWheel>& Kb::torch_table() const { return m_data->torch; }
const std::vector<TensorflowBuild>& Kb::tensorflow_table() const { return m_data->tensorflow; }
const std::vector<DistroRelease>& Kb::distro_table() const { return m_data->distros; }
const std::vector<PackageTemplate>& Kb::package_table() const { return m_data->packages; }
const std::vector<KernelModules>& Kb::kernel_module_table() const { return m_data->kernel_modules; }
const std::vector<JaxBuild>& Kb::jax_table() const { return m_data->jax; }
const std::vector<CudaRepository>& Kb::cuda_repository_table() const { return m_data->repos; }

}  // namespace cudoctor::kb
