// jax_cuda.tsv and cuda_repos.tsv: the facts `cudoctor plan` needs beyond the other tables —
// which CUDA extra a JAX release installs, and which toolkits NVIDIA's apt repositories carry.
#include "kb/kb_data.hpp"

namespace cudoctor::kb {

namespace detail {

Expected<void> read_jax(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"jax_first", "jax_last", "extra", "cuda_built", "cuda_min", "cudnn_built", "min_linux_driver",
                                         "cc_min", "confidence", "note"});
        !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        JaxBuild j;
        CUDOCTOR_KB_TRY(j.jax_first, r.version("jax_first"));
        CUDOCTOR_KB_TRY(j.jax_last, r.version("jax_last"));
        if (j.jax_last < j.jax_first) return r.error("jax_last", "lower than jax_first");
        j.extra = r.text("extra");
        if (!j.extra.starts_with("cuda")) return r.error("extra", "'" + j.extra + "' is not a cudaNN extra");
        CUDOCTOR_KB_TRY(j.cuda_built, r.version("cuda_built"));
        CUDOCTOR_KB_TRY(j.cuda_min, r.version("cuda_min"));
        CUDOCTOR_KB_TRY(j.cudnn_built, r.optional_version("cudnn_built"));
        CUDOCTOR_KB_TRY(j.min_linux_driver, r.optional_version("min_linux_driver"));
        CUDOCTOR_KB_TRY(j.cc_min, r.compute_capability("cc_min"));
        j.confidence = r.text("confidence");
        j.note = r.text("note");
        data.jax.push_back(std::move(j));
    }
    return {};
}

Expected<void> read_repos(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"repo", "first_cuda", "last_cuda", "confidence", "note"}); !ok) return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        CudaRepository repo;
        repo.repo = r.text("repo");
        if (repo.repo.empty()) return r.error("repo", "empty");
        CUDOCTOR_KB_TRY(repo.first_cuda, r.version("first_cuda"));
        CUDOCTOR_KB_TRY(repo.last_cuda, r.optional_version("last_cuda"));
        if (repo.last_cuda && *repo.last_cuda < repo.first_cuda) return r.error("last_cuda", "lower than first_cuda");
        repo.confidence = r.text("confidence");
        repo.note = r.text("note");
        data.repos.push_back(std::move(repo));
    }
    return {};
}

}  // namespace detail

bool CudaRepository::publishes(const Version& cuda) const {
    const Version minor = cuda.truncated(2);
    return minor >= first_cuda.truncated(2) && (!last_cuda || minor <= last_cuda->truncated(2));
}

std::vector<JaxBuild> Kb::jax_builds(const Version& jax) const {
    std::vector<JaxBuild> rows;
    for (const auto& j : jax_table()) {
        if (jax >= j.jax_first && jax <= j.jax_last) rows.push_back(j);
    }
    return rows;
}

std::optional<CudaRepository> Kb::cuda_repository(std::string_view repo) const {
    for (const auto& r : cuda_repository_table()) {
        if (r.repo == repo) return r;
    }
    return std::nullopt;
}

}  // namespace cudoctor::kb
