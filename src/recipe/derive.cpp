#include "recipe/derive.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "recipe/candidates.hpp"
#include "recipe/install.hpp"
#include "recipe/steps.hpp"

namespace cudoctor::recipe {

namespace {

using detail::Candidate;

std::string gpu_label(const Target& t) {
    const std::string sm = detail::sm_name(t.compute_capability);
    return t.gpu_name.empty() ? sm : t.gpu_name + " (" + sm + ")";
}

/// What one candidate costs on this machine; the plan takes the cheapest (then the newest CUDA).
struct Cost {
    const Candidate* c = nullptr;
    bool toolkit = false;   ///< a system toolkit is part of the set
    Version toolkit_minor;  ///< its X.Y
    std::optional<kb::ToolkitRelease> release;
    std::optional<Version> min_driver;
    int driver_change = 0;    ///< the driver must be installed or upgraded
    int toolkit_install = 0;  ///< the toolkit is not installed yet (an installed one is kept)
    int gcc_step = 0;         ///< the OS gcc is newer than the toolkit accepts
    int runfile = 0;          ///< no cuda-toolkit-X-Y package for this OS in NVIDIA's repository
    int experimental = 0;
    auto key() const { return std::make_tuple(driver_change, toolkit_install, gcc_step, runfile, experimental); }
};

bool needs_toolkit(const Request& r, const Candidate& c) { return r.need_nvcc || r.need_opencv || c.system_toolkit; }
bool needs_cudnn(const Request& r, const Candidate& c) { return r.need_cudnn || r.need_opencv || c.system_cudnn; }

/// The toolkit minor for a candidate: its CUDA, or (only the major known) the newest fitting minor
/// of that major the driver already runs, else the newest fitting one.
std::optional<Version> toolkit_minor(const Candidate& c, const Target& t, const kb::Kb& kb) {
    if (c.cuda.size() >= 2) return c.cuda.truncated(2);
    std::optional<Version> newest, runnable;
    for (const auto& r : kb.toolkit_releases()) {
        const Version m = r.toolkit.truncated(2);
        if (m.major() != c.cuda.major() || !r.min_linux_driver) continue;
        if (!t.compute_capability.empty() && !detail::gpu_reason(m, t.compute_capability, t.architecture, kb).empty()) continue;
        if (!newest || m > *newest) newest = m;
        if (t.driver && *r.min_linux_driver <= *t.driver && (!runnable || m > *runnable)) runnable = m;
    }
    return runnable ? runnable : newest;
}

Cost cost_of(const Candidate& c, const Request& r, const Target& t, const kb::Kb& kb) {
    Cost k;
    k.c = &c;
    k.experimental = c.experimental ? 1 : 0;
    k.min_driver = c.min_driver;
    k.toolkit = needs_toolkit(r, c);
    if (k.toolkit) {
        if (auto m = toolkit_minor(c, t, kb)) {
            k.toolkit_minor = *m;
            // An installed toolkit of that minor is kept as it is.
            const auto kept =
                std::find_if(t.toolkits.begin(), t.toolkits.end(), [&](const auto& tk) { return tk.version.truncated(2) == *m; });
            k.release = detail::toolkit_update(kept != t.toolkits.end() ? kept->version : *m, t.driver, kb);
            if (kept != t.toolkits.end() && k.release) k.release->toolkit = kept->version;
            if (kept == t.toolkits.end()) k.toolkit_install = 1;
            if (k.release && k.release->min_linux_driver && (!k.min_driver || *k.release->min_linux_driver > *k.min_driver))
                k.min_driver = kb.min_driver_for(k.release->toolkit);
            const auto max_gcc = kb.max_gcc_for(k.release ? k.release->toolkit : *m);
            if (max_gcc && t.gcc_default && *t.gcc_default > *max_gcc) k.gcc_step = 1;
            const auto repo_name = cuda_repo_of(t.distro, kb);
            const auto repo = repo_name.empty() ? std::nullopt : kb.cuda_repository(repo_name);
            if (kept == t.toolkits.end() && (r.offline || !repo || !repo->publishes(*m))) k.runfile = 1;
        }
    }
    if (t.gpu_visible && !t.distro.wsl && k.min_driver && !(t.driver && *t.driver >= *k.min_driver)) k.driver_change = 1;
    return k;
}

std::string soft_reason(const Cost& lost, const Cost& won, const Target& t) {
    const std::string other = won.c->label;
    if (lost.driver_change != won.driver_change)
        return fmt::format("needs a newer driver (≥ {}); the installed {} already runs {}", lost.min_driver ? lost.min_driver->str() : "?",
                           t.driver ? t.driver->str() : "driver", other);
    if (lost.toolkit_install != won.toolkit_install)
        return fmt::format("needs a CUDA {} toolkit installed; the one already here serves {}", lost.toolkit_minor.str(), other);
    if (lost.gcc_step != won.gcc_step)
        return fmt::format("CUDA {} rejects the OS's gcc {}: it would need an older gcc; {} does not", lost.toolkit_minor.str(),
                           t.gcc_default.value_or(0), other);
    if (lost.runfile != won.runfile)
        return fmt::format("NVIDIA's repository for {} has no cuda-toolkit-{}-{} (runfile only); {} installs as a package",
                           t.distro.label(), lost.toolkit_minor.major(), lost.toolkit_minor.minor(), other);
    if (lost.experimental != won.experimental) return "experimental in the release matrix; " + other + " is the stable build";
    return fmt::format("works too; {} is built with a newer CUDA", other);
}

void record_choices(Recipe& plan, const Cost& k, const Request& r, const Target& t, const kb::Kb& kb) {
    const Candidate& c = *k.c;
    plan.cuda = c.cuda;
    plan.min_driver = k.min_driver;
    plan.framework = c.framework;
    plan.framework_version = c.framework.empty() ? "" : c.release.str();
    plan.framework_variant = c.variant;
    plan.framework_cudnn = c.bundled_cudnn;
    if (!c.framework.empty()) {
        std::string why;
        if (c.framework == "torch")
            // Kernels are claimed only where the wheel's architecture list proves them.
            why = fmt::format("the {} wheel of torch {}{}; {}", c.variant, c.release.str(),
                              c.experimental ? " (experimental in the release matrix)" : " (stable in the release matrix)",
                              c.gpu_fit == Fit::runs
                                  ? "it carries kernels for " + gpu_label(t)
                                  : "its architecture list is not in the knowledge base: kernels for " + gpu_label(t) + " are not proven");
        else if (c.framework == "tensorflow")
            why = fmt::format("TensorFlow {}'s tested build: CUDA {} and cuDNN {} exactly{}", c.release.str(), c.cuda.str(),
                              c.tested_cudnn ? c.tested_cudnn->str() : "?",
                              c.variant == "and-cuda" ? "; the [and-cuda] extra installs them as wheels" : "; it loads them from the system");
        else
            why = fmt::format("the {} extra of jax {}: CUDA {} and cuDNN {} as wheels", c.variant, c.release.str(), c.cuda.str(),
                              c.bundled_cudnn ? c.bundled_cudnn->str() : "?");
        if (r.framework && r.framework->version.empty())
            why += r.framework->clauses.empty()
                       ? " — the newest release in the knowledge base that fits"
                       : " — the newest release in the knowledge base that " + r.framework->clause_text() + " allows and that fits";
        plan.chosen.push_back({"framework", c.label, why});
    }
    std::string cuda_why =
        c.framework.empty()
            ? (r.cuda ? "asked for (--cuda); it can target " + gpu_label(t)
                      : "the newest CUDA that targets " + gpu_label(t) + (k.driver_change ? "" : " and the installed driver runs"))
            : fmt::format("what {} is built with", c.label);
    if (auto range = kb.toolkits_supporting(t.compute_capability))
        cuda_why += fmt::format(" ({} needs CUDA {}–{})", detail::sm_name(t.compute_capability), range->first.str(),
                                range->last ? range->last->str() : "today");
    plan.chosen.push_back({"cuda", "CUDA " + c.cuda.str(), cuda_why});
    if (k.min_driver)
        plan.chosen.push_back(
            {"driver", "≥ " + k.min_driver->str(),
             fmt::format("the minimum Linux driver of CUDA {} (cuda_driver.tsv)", k.release ? k.release->toolkit.str() : c.cuda.str())});
    for (const auto& w : c.warnings) plan.warnings.push_back(w);
}

}  // namespace

Expected<Recipe> derive_plan(const Request& request, const Target& target, const kb::Kb& kb) {
    Recipe plan;
    plan.target = target;
    if (target.compute_capability.empty()) {
        plan.refused = Refusal{fmt::format("this {} virtual machine sees no NVIDIA GPU: nothing inside it can run CUDA until the "
                                           "hypervisor passes a GPU through (PCI passthrough or vGPU). No driver step is planned "
                                           "inside a VM without one; name the GPU you will pass through with --gpu to plan the rest",
                                           target.virtualization),
                               ""};
        return plan;
    }
    auto cands = detail::candidates_for(request, target, kb);
    if (!cands) return Unexpected<Error>(cands.error());

    std::vector<Cost> fits;
    for (const auto& c : *cands)
        if (!c.rejected) fits.push_back(cost_of(c, request, target, kb));
    for (const auto& c : *cands)
        if (c.rejected) plan.rejected.push_back({c.variant.empty() ? c.label : c.variant, *c.rejected, true});

    if (fits.empty()) {
        std::string reason;
        if (cands->size() == 1) {
            reason = *cands->front().rejected;
        } else {
            const std::string what = request.framework ? request.framework->name + " " + (*cands)[0].release.str() : std::string("CUDA");
            std::string builds;
            for (const auto& c : *cands) builds += (builds.empty() ? "" : ", ") + (c.variant.empty() ? c.label : c.variant);
            const bool none_asked = request.cuda && std::none_of(cands->begin(), cands->end(),
                                                                 [&](const Candidate& c) { return detail::is_cuda_asked(c, request); });
            // The true reason first: with --cuda, a release without a build of that CUDA is refused for that.
            reason = none_asked ? fmt::format("{} has no CUDA {} build (it has {})", what, request.cuda->str(), builds)
                                : fmt::format("no {} build runs on the {}: see the rejected alternatives", what, gpu_label(target));
        }
        plan.refused = Refusal{reason, detail::nearest_working(request, target, kb)};
        return plan;
    }
    std::stable_sort(fits.begin(), fits.end(), [](const Cost& a, const Cost& b) {
        if (a.key() != b.key()) return a.key() < b.key();
        return a.c->cuda > b.c->cuda;
    });
    const Cost& won = fits.front();
    for (std::size_t i = 1; i < fits.size(); ++i)
        plan.rejected.push_back(
            {fits[i].c->variant.empty() ? fits[i].c->label : fits[i].c->variant, soft_reason(fits[i], won, target), false});
    std::stable_partition(plan.rejected.begin(), plan.rejected.end(), [](const Rejected& r) { return !r.hard; });

    record_choices(plan, won, request, target, kb);
    if (won.toolkit && won.release) {
        plan.toolkit_release = won.release->toolkit;
        plan.toolkit_path = toolkit_dir(won.toolkit_minor);
    }
    if (won.toolkit && !won.release)
        plan.warnings.push_back("no CUDA " + won.toolkit_minor.str() + " release with a runfile in cuda_driver.tsv: no toolkit step");

    detail::StepContext ctx{request, target, kb, *won.c, plan};
    const bool want_cudnn = needs_cudnn(request, *won.c);
    detail::add_driver_step(ctx);
    if (won.toolkit && won.release) {
        detail::add_gcc_step(ctx);
        detail::add_toolkit_step(ctx);
    } else if (!won.c->framework.empty()) {
        plan.skipped.push_back({"toolkit", "no system CUDA toolkit",
                                fmt::format("{} brings the CUDA {} runtime as wheels; a toolkit is only needed to compile CUDA code "
                                            "(--need nvcc)",
                                            won.c->label, won.c->cuda.str())});
    }
    if (want_cudnn) {
        detail::add_cudnn_step(ctx);
    } else if (!won.c->framework.empty()) {
        plan.skipped.push_back({"cudnn", "no system cuDNN",
                                fmt::format("{}'s wheels bring their own cuDNN{}; a system cuDNN only serves C/C++ programs (--need cudnn)",
                                            won.c->label, won.c->bundled_cudnn ? " " + won.c->bundled_cudnn->str() : "")});
        plan.cudnn = won.c->bundled_cudnn;
    }
    if (!won.c->framework.empty()) detail::add_framework_step(ctx);
    return plan;
}

}  // namespace cudoctor::recipe
