#include "recipe/build_targets.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "recipe/candidates.hpp"

namespace cudoctor::recipe {

namespace {

/// A plain capability ("8.6"); "9.0a" and unknown text give nullopt.
std::optional<Version> plain_cc(const std::string& cc) {
    if (cc.empty() || !std::all_of(cc.begin(), cc.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; })) return std::nullopt;
    auto v = Version::parse(cc);
    if (!v || v->size() != 2) return std::nullopt;
    return v;
}

/// Whether CUDA `cuda` can compile SASS (and PTX) for this cuda_arch_support.tsv row; nullopt when
/// the row does not say which toolkits can.
std::optional<bool> can_target(const Version& cuda, const kb::ArchSupport& a) {
    if (!a.first_cuda) return std::nullopt;
    const Version minor = cuda.truncated(2);
    if (minor < a.first_cuda->truncated(minor.size())) return false;
    if (a.last_cuda && minor.truncated(a.last_cuda->size()) > *a.last_cuda) return false;
    return true;
}

GpuFit fit_from_list(const BuildTargets& t, const Version& gpu) {
    const bool sass = std::any_of(t.sass.begin(), t.sass.end(), [&](const std::string& a) {
        auto v = Version::parse(a);
        return v && v->major() == gpu.major() && v->minor() <= gpu.minor();
    });
    if (sass) return {Fit::runs, {}};
    if (t.ptx_from)
        if (auto p = Version::parse(*t.ptx_from); p && *p <= gpu) return {Fit::runs, {}};
    return {Fit::cannot_run, fmt::format("carries {} only: no SASS for {} (nor for a lower {}.x) and no PTX the driver could compile for it",
                                         describe_targets(t), detail::sm_name(gpu.str()), gpu.major())};
}

}  // namespace

BuildTargets torch_targets(const kb::TorchWheel& wheel) {
    BuildTargets t;
    t.cuda = wheel.cuda;
    t.sass = wheel.cuda_archs;
    if (wheel.ptx && !wheel.cuda_archs.empty()) t.ptx_from = wheel.cuda_archs.back();
    return t;
}

std::string describe_targets(const BuildTargets& t) {
    std::string out;
    for (const auto& a : t.sass) out += (out.empty() ? "" : " ") + detail::sm_name(a);
    if (t.ptx_from) out += " + PTX for compute " + *t.ptx_from + " and newer";
    return out;
}

GpuFit gpu_fit(const BuildTargets& t, const std::string& cc, const std::string& architecture, const kb::Kb& kb) {
    const auto gpu = plain_cc(cc);
    if (!gpu) return {};
    if (!t.sass.empty()) return fit_from_list(t, *gpu);

    // No list: what could the build's CUDA have compiled? SASS runs on the same major from its
    // minor up (sm_86 code runs on 8.9); PTX JIT-compiles only for the same or a newer GPU.
    bool sass_possible = false, ptx_possible = false;
    for (const auto& a : kb.arch_table()) {
        const auto v = plain_cc(a.compute_capability);
        if (!v || *v > *gpu) continue;
        const auto ok = can_target(t.cuda, a);
        if (ok == false) continue;  // an unknown range (nullopt) may hold code for the GPU: not excluded
        ptx_possible = true;
        if (v->major() == gpu->major()) sass_possible = true;
    }
    if (sass_possible) return {};
    const std::string why = detail::gpu_reason(t.cuda, cc, architecture, kb);
    if (why.empty()) return {};  // the table cannot say what this CUDA can target for it
    if (!ptx_possible)
        return {Fit::cannot_run, fmt::format("is built with {}; PTX JIT-compiles only for newer GPUs, so nothing in it runs on {}", why,
                                             detail::sm_name(cc))};
    return {Fit::needs_ptx, fmt::format("is built with {}: it runs there only through PTX JIT compilation if the build ships PTX, "
                                        "and its architecture list is not in the knowledge base",
                                        why)};
}

bool tensorflow_has_and_cuda(const Version& tensorflow) { return tensorflow >= Version({2, 14}); }

}  // namespace cudoctor::recipe
