#include "recipe/candidates.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "recipe/build_targets.hpp"
#include "recipe/request.hpp"

namespace cudoctor::recipe::detail {

namespace {

/// A legacy architecture (no open kernel modules) has a last driver branch; newer ones do not.
std::string driver_branch_reason(const Candidate& c, const Target& t, const kb::Kb& kb) {
    if (!c.min_driver || t.distro.wsl) return {};
    auto modules = kb.kernel_modules_for(t.architecture);
    if (!modules || modules->open || !modules->driver_branch) return {};
    if (c.min_driver->major() <= *modules->driver_branch) return {};
    return fmt::format("CUDA {} needs driver ≥ {}, but the newest driver for {} GPUs is the {} branch", c.cuda.str(), c.min_driver->str(),
                       t.architecture, *modules->driver_branch);
}

void check(Candidate& c, const Target& t, const kb::Kb& kb, const std::optional<kb::TorchWheel>& wheel) {
    if (t.compute_capability.empty()) return;
    if (wheel) {
        // The same verdict check's framework-gpu-arch-unsupported gives (recipe/build_targets).
        const auto targets = torch_targets(*wheel);
        const auto fit = gpu_fit(targets, t.compute_capability, t.architecture, kb);
        c.gpu_fit = fit.fit;
        if (fit.fit == Fit::cannot_run && !targets.sass.empty()) {
            std::string list;
            for (const auto& a : targets.sass) list += (list.empty() ? "" : " ") + sm_name(a);
            c.rejected = fmt::format("{} wheels lack {} (they carry {}{})", c.variant, sm_name(t.compute_capability), list,
                                     targets.ptx_from ? " + PTX" : "");
            return;
        }
        // Not proven to run (its CUDA cannot target the GPU and its PTX is unknown): never planned.
        if (fit.fit == Fit::cannot_run || fit.fit == Fit::needs_ptx) {
            c.rejected = c.label + " " + fit.reason;
            return;
        }
    } else if (auto why = gpu_reason(c.cuda, t.compute_capability, t.architecture, kb); !why.empty()) {
        const bool newer_gpu = [&] {
            auto range = kb.toolkits_supporting(t.compute_capability);
            return range && c.cuda.truncated(2) < range->first;
        }();
        if (newer_gpu && (c.framework == "tensorflow" || c.framework == "jax")) {
            // XLA / TensorFlow ship PTX and JIT-compile at run time: slow first start, not a refusal.
            c.warnings.push_back(
                fmt::format("{} is built with CUDA {}, which predates {}: its kernels reach the GPU only "
                            "through PTX JIT compilation (slow first start, where the build ships PTX)",
                            c.label, c.cuda.str(), sm_name(t.compute_capability)));
        } else {
            c.rejected = (c.framework.empty() ? "" : c.label + " is built with ") + why;
            return;
        }
    }
    if (auto why = driver_branch_reason(c, t, kb); !why.empty()) c.rejected = why;
}

std::optional<Version> min_driver_of(const Version& cuda, const kb::Kb& kb) {
    if (cuda.size() < 2) return kb.minor_compat_floor(cuda.major());
    return kb.min_driver_for(cuda);
}

std::vector<Candidate> torch_candidates(const Version& release, const Target& t, const kb::Kb& kb) {
    std::vector<Candidate> out;
    for (const auto& w : kb.torch_wheels(release)) {
        Candidate c;
        c.framework = "torch";
        c.release = w.torch;
        c.variant = w.variant;
        c.label = fmt::format("torch {} ({})", w.torch.str(), w.variant);
        c.cuda = w.cuda;
        c.experimental = w.status != "stable";
        c.bundled_cudnn = w.bundled_cudnn;
        c.min_driver = min_driver_of(w.cuda, kb);
        check(c, t, kb, w);
        out.push_back(std::move(c));
    }
    return out;
}

std::vector<Candidate> tensorflow_candidates(const Version& release, const Target& t, const kb::Kb& kb) {
    auto build = kb.tensorflow_tested_build(release, "Linux");
    if (!build) return {};
    Candidate c;
    c.framework = "tensorflow";
    c.release = build->tensorflow.truncated(2);
    // From 2.14 the [and-cuda] extra brings the CUDA and cuDNN wheels; before, TensorFlow loads the system's.
    const bool and_cuda = tensorflow_has_and_cuda(build->tensorflow);
    c.variant = and_cuda ? "and-cuda" : "system";
    c.label = fmt::format("tensorflow {} (CUDA {}, cuDNN {})", c.release.str(), build->cuda.str(), build->cudnn.str());
    c.cuda = build->cuda;
    c.tested_cudnn = build->cudnn;
    if (and_cuda) c.bundled_cudnn = build->cudnn;
    c.system_toolkit = c.system_cudnn = !and_cuda;
    c.min_driver = min_driver_of(build->cuda, kb);
    check(c, t, kb, std::nullopt);
    return {c};
}

std::vector<Candidate> jax_candidates(const Version& release, const Target& t, const kb::Kb& kb) {
    std::vector<Candidate> out;
    for (const auto& j : kb.jax_builds(release)) {
        Candidate c;
        c.framework = "jax";
        c.release = release;
        c.variant = j.extra;
        c.label = fmt::format("jax {} ({})", release.str(), j.extra);
        c.cuda = j.cuda_built;
        c.bundled_cudnn = j.cudnn_built;
        c.min_driver = j.min_linux_driver ? j.min_linux_driver : min_driver_of(j.cuda_built, kb);
        if (!j.cc_min.empty() && !t.compute_capability.empty()) {
            auto need = Version::parse(j.cc_min), have = Version::parse(t.compute_capability);
            if (need && have && *have < *need) {
                c.rejected = fmt::format("{} needs a GPU of compute capability ≥ {}", c.label, j.cc_min);
                out.push_back(std::move(c));
                continue;
            }
        }
        check(c, t, kb, std::nullopt);
        out.push_back(std::move(c));
    }
    return out;
}

/// Every CUDA minor in cuda_driver.tsv with a known minimum driver, newest first.
std::vector<Version> cuda_minors(const kb::Kb& kb) {
    std::set<Version> minors;
    for (const auto& r : kb.toolkit_releases())
        if (r.min_linux_driver) minors.insert(r.toolkit.truncated(2));
    return {minors.rbegin(), minors.rend()};
}

std::vector<Candidate> toolkit_candidates(const std::optional<Version>& wanted, const Target& t, const kb::Kb& kb) {
    std::vector<Candidate> out;
    for (const auto& minor : cuda_minors(kb)) {
        if (wanted && minor.truncated(wanted->size()) != wanted->truncated(2)) continue;
        Candidate c;
        c.release = minor;
        c.label = "CUDA " + minor.str();
        c.cuda = minor;
        c.system_toolkit = true;
        c.min_driver = min_driver_of(minor, kb);
        check(c, t, kb, std::nullopt);
        out.push_back(std::move(c));
    }
    return out;
}

/// The framework's releases in the KB, oldest first.
std::vector<Version> releases_of(const std::string& framework, const kb::Kb& kb) {
    std::set<Version> all;
    if (framework == "torch")
        for (const auto& w : kb.torch_table()) all.insert(w.torch);
    if (framework == "tensorflow")
        for (const auto& b : kb.tensorflow_table())
            if (b.platform == "Linux") all.insert(b.tensorflow.truncated(2));
    if (framework == "jax")
        for (const auto& j : kb.jax_table()) all.insert(j.jax_first);
    return {all.begin(), all.end()};
}

std::vector<Candidate> framework_candidates(const std::string& framework, const Version& release, const Target& t, const kb::Kb& kb) {
    if (framework == "torch") return torch_candidates(release, t, kb);
    if (framework == "tensorflow") return tensorflow_candidates(release, t, kb);
    return jax_candidates(release, t, kb);
}

/// --cuda: every other CUDA is rejected (a candidate the GPU already rules out keeps that reason).
void reject_other_cuda(std::vector<Candidate>& cands, const Request& request) {
    if (!request.cuda) return;
    for (auto& c : cands)
        if (!c.rejected && !is_cuda_asked(c, request)) {
            c.rejected = fmt::format("{} is CUDA {}, not the CUDA {} asked for (--cuda)", c.label, c.cuda.str(), request.cuda->str());
            c.other_cuda = true;
        }
}

}  // namespace

bool is_cuda_asked(const Candidate& c, const Request& request) {
    return !request.cuda || c.cuda.truncated(request.cuda->size()) == request.cuda->truncated(c.cuda.size());
}

std::string sm_name(const std::string& cc) {
    std::string out = "sm_";
    for (char ch : cc)
        if (ch != '.') out += ch;
    return out;
}

std::string gpu_reason(const Version& cuda, const std::string& cc, const std::string& architecture, const kb::Kb& kb) {
    auto range = kb.toolkits_supporting(cc);
    if (!range) return {};
    const Version minor = cuda.truncated(2);
    if (minor < range->first)
        return fmt::format("CUDA {}, which cannot target {} ({}; needs CUDA ≥ {})", cuda.str(), sm_name(cc),
                           architecture.empty() ? "compute " + cc : architecture, range->first.str());
    if (range->last && minor.truncated(range->last->size()) > *range->last)
        return fmt::format("CUDA {}, which dropped {} ({}): the last toolkit for it is CUDA {}", cuda.str(), sm_name(cc),
                           architecture.empty() ? "compute " + cc : architecture, range->last->str());
    return {};
}

Expected<std::vector<Candidate>> candidates_for(const Request& request, const Target& target, const kb::Kb& kb) {
    std::vector<Candidate> out;
    if (request.framework) {
        const auto& fw = *request.framework;
        const auto releases = releases_of(fw.name, kb);
        if (fw.version.empty()) {
            // No version asked, or specifiers (torch>=2.3,<2.6): the newest release they admit
            // with a candidate that fits; when none fits, the newest they admit, with its reasons.
            std::vector<Candidate> newest_admitted;
            bool any_admitted = false;
            for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
                if (!fw.admits(*it)) continue;
                out = framework_candidates(fw.name, *it, target, kb);
                if (!any_admitted) newest_admitted = out;
                any_admitted = true;
                if (std::any_of(out.begin(), out.end(), [](const auto& c) { return !c.rejected; })) break;
                out.clear();
            }
            if (out.empty()) out = std::move(newest_admitted);
            if (!any_admitted && !fw.clauses.empty()) {
                std::string known = releases.empty() ? "none" : releases.front().str() + " … " + releases.back().str();
                return fail(Errc::usage, fmt::format("no {} release in the knowledge base satisfies {} (it knows {}); newer tables: --kb DIR",
                                                     fw.name, fw.clause_text(), known));
            }
        } else {
            out = framework_candidates(fw.name, fw.version, target, kb);
        }
        if (out.empty()) {
            std::string known = releases.empty() ? "none" : releases.front().str() + " … " + releases.back().str();
            return fail(Errc::usage, fmt::format("{} {} is not in the knowledge base (it knows {}); newer tables: --kb DIR", fw.name,
                                                 fw.version.str(), known));
        }
        reject_other_cuda(out, request);
        return out;
    }
    out = toolkit_candidates(request.cuda, target, kb);
    if (out.empty())
        return fail(Errc::usage, "CUDA " + (request.cuda ? request.cuda->str() : std::string("?")) +
                                     " is not in cuda_driver.tsv (a release with a known minimum driver)");
    return out;
}

std::string nearest_working(const Request& request, const Target& target, const kb::Kb& kb) {
    auto first_fit = [](const std::vector<Candidate>& cs) -> const Candidate* {
        for (const auto& c : cs)
            if (!c.rejected) return &c;
        return nullptr;
    };
    if (request.framework) {
        const auto& fw = *request.framework;
        auto releases = releases_of(fw.name, kb);
        // Newer releases first (closest first), then older ones (closest first).
        std::vector<Version> order;
        for (const auto& r : releases)
            if (r > fw.version) order.push_back(r);
        for (auto it = releases.rbegin(); it != releases.rend(); ++it)
            if (*it < fw.version) order.push_back(*it);
        // A release with a build of the CUDA asked for (--cuda) first; any other only when none has one.
        for (const bool honour_cuda : {true, false}) {
            if (!honour_cuda && !request.cuda) break;
            for (const auto& r : order) {
                auto cs = framework_candidates(fw.name, r, target, kb);
                if (honour_cuda) reject_other_cuda(cs, request);
                if (const auto* c = first_fit(cs)) return c->label;
            }
        }
        return {};
    }
    auto all = toolkit_candidates(std::nullopt, target, kb);
    const Version wanted = request.cuda ? request.cuda->truncated(2) : Version();
    const Candidate* best = nullptr;
    auto distance = [&](const Version& v) {
        const int a = v.major() * 100 + v.minor(), b = wanted.major() * 100 + wanted.minor();
        return a > b ? a - b : b - a;
    };
    for (const auto& c : all)
        if (!c.rejected && (!best || distance(c.cuda) < distance(best->cuda))) best = &c;
    return best ? best->label : std::string();
}

std::optional<kb::ToolkitRelease> toolkit_update(const Version& cuda, const std::optional<Version>& driver, const kb::Kb& kb) {
    const Version minor = cuda.truncated(2);
    const kb::ToolkitRelease* newest = nullptr;
    const kb::ToolkitRelease* runnable = nullptr;
    for (const auto& r : kb.toolkit_releases()) {
        if (r.toolkit.truncated(2) != minor || !r.min_linux_driver || r.runfile.empty()) continue;
        if (!newest || r.toolkit > newest->toolkit) newest = &r;
        if (driver && *r.min_linux_driver <= *driver && (!runnable || r.toolkit > runnable->toolkit)) runnable = &r;
    }
    if (runnable) return *runnable;
    if (newest) return *newest;
    return std::nullopt;
}

}  // namespace cudoctor::recipe::detail
