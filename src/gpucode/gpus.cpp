#include "gpucode/gpus.hpp"

#include "common/text.hpp"

namespace cudoctor::gpucode {
namespace {

std::string normalized(std::string_view name) {
    std::string s = text::to_lower(text::trim(name));
    if (s.starts_with("nvidia ")) s.erase(0, 7);
    return s;
}

}  // namespace

Expected<TargetGpu> resolve_gpu(const kb::Kb& kb, std::string_view spec) {
    if (auto cc = parse_compute_capability(text::trim(spec))) {
        // A capability no GPU has (99.9) would get a verdict about nothing.
        if (!kb.arch_support(cc->str())) {
            std::string known;
            for (const auto& a : kb.arch_table()) known += (known.empty() ? "" : ", ") + a.compute_capability;
            return fail(Errc::usage, "--gpu " + std::string(text::trim(spec)) + ": no GPU has compute capability " + cc->str() +
                                         " (cuda_arch_support.tsv knows " + known + ")");
        }
        return TargetGpu{"compute capability " + cc->str(), *cc, "--gpu"};
    }
    const std::string want = normalized(spec);
    if (want.empty()) return fail(Errc::usage, "--gpu: empty GPU name");
    // Three passes, strictest first: the first pass with matches decides.
    const auto matches = [&](int pass, const std::string& have) {
        if (pass == 0) return have == want;
        if (pass == 1) return have.ends_with(" " + want);
        return have.find(want) != std::string::npos;
    };
    for (int pass = 0; pass < 3; ++pass) {
        std::vector<const kb::GpuModel*> found;
        for (const auto& g : kb.gpus()) {
            bool hit = matches(pass, normalized(g.info.name));
            for (const auto& alias : g.driver_names) hit = hit || matches(pass, normalized(alias));
            if (hit) found.push_back(&g);
        }
        if (found.empty()) continue;
        std::string ccs, names;
        for (const auto* g : found) {
            if (ccs.find(g->info.compute_capability) == std::string::npos) {
                ccs += (ccs.empty() ? "" : ", ") + g->info.compute_capability;
                names += (names.empty() ? "" : ", ") + g->info.name + " (" + g->info.compute_capability + ")";
            }
        }
        if (ccs.find(',') != std::string::npos)
            return fail(Errc::usage, "--gpu '" + std::string(spec) + "' matches GPUs of different compute capabilities: " + names +
                                         "; give the full name or the compute capability");
        auto cc = parse_compute_capability(found.front()->info.compute_capability);
        if (!cc) continue;
        return TargetGpu{found.front()->info.name, *cc, "--gpu"};
    }
    return fail(Errc::usage, "--gpu '" + std::string(spec) + "': not a compute capability (8.9, sm_89) nor a GPU name in the knowledge base");
}

std::vector<TargetGpu> machine_gpus(const std::vector<snapshot::Gpu>& gpus) {
    std::vector<TargetGpu> out;
    for (const auto& g : gpus)
        if (auto cc = parse_compute_capability(g.compute_capability))
            out.push_back({g.name.empty() ? "GPU " + g.bus_id : g.name, *cc, g.bus_id});
    return out;
}

}  // namespace cudoctor::gpucode
