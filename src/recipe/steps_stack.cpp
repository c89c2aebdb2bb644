// The cuDNN and framework steps. cuDNN from NVIDIA's repository (keyring first) or the tar
// archive (cp -P keeps its links) into the versioned toolkit folder; skipped when only pip
// frameworks are used. The framework from pip with the index of the chosen CUDA variant, in a
// virtual environment (PEP 668 distributions refuse a system-wide pip install).
#include <algorithm>

#include <fmt/format.h>

#include "recipe/install.hpp"
#include "recipe/steps.hpp"

namespace cudoctor::recipe::detail {

namespace {

bool cc_within(const std::string& cc, const std::string& lo, const std::string& hi) {
    auto v = Version::parse(cc);
    if (!v) return true;
    if (auto l = Version::parse(lo); l && *v < *l) return false;
    if (auto h = Version::parse(hi); h && *v > *h) return false;
    return true;
}

/// The newest cuDNN release built for `cuda` that supports the GPU, within `series` when given
/// (TensorFlow's tested 8.9).
std::optional<Version> choose_cudnn(const Version& cuda, const std::string& cc, const std::optional<Version>& series, const kb::Kb& kb) {
    std::optional<Version> best;
    for (const auto& row : kb.cudnn_table()) {
        if (!row.covers_cuda(cuda) || !cc_within(cc, row.cc_min, row.cc_max)) continue;
        if (series && row.cudnn_last.truncated(series->size()) != *series) continue;
        if (!best || row.cudnn_last > *best) best = row.cudnn_last;
    }
    return best;
}

}  // namespace

void add_cudnn_step(StepContext& ctx) {
    const auto& t = ctx.target;
    auto& plan = ctx.plan;
    const Version cuda = plan.toolkit_release ? plan.toolkit_release->truncated(2) : plan.cuda->truncated(2);
    const auto version = choose_cudnn(cuda, t.compute_capability, ctx.chosen.tested_cudnn, ctx.kb);
    if (!version) {
        plan.warnings.push_back(fmt::format("no cuDNN release in cudnn_cuda.tsv is built for CUDA {} and {}: no cuDNN step", cuda.str(),
                                            sm_name(t.compute_capability)));
        return;
    }
    const int major = cuda.major();
    plan.cudnn = *version;
    plan.cudnn_system = true;
    plan.chosen.push_back({"cudnn", "cuDNN " + version->str(),
                           fmt::format("the newest cuDNN{} built for CUDA {} that supports {} (cudnn_cuda.tsv)",
                                       ctx.chosen.tested_cudnn ? " " + ctx.chosen.tested_cudnn->str() + ".x (TensorFlow's tested series)" : "",
                                       cuda.str(), sm_name(t.compute_capability))});
    for (const auto& c : t.cudnn) {
        const bool same_series = c.version.truncated(version->size() - 1) == version->truncated(version->size() - 1) ||
                                 (!ctx.chosen.tested_cudnn && c.version.major() == version->major());
        const auto majors = ctx.kb.cuda_majors_for_cudnn(c.version);
        const bool for_cuda = c.cuda_major == std::to_string(major) ||
                              (c.cuda_major.empty() && std::find(majors.begin(), majors.end(), major) != majors.end());
        if (c.location != "pip" && c.location != "conda" && same_series && for_cuda) {
            plan.cudnn = c.version;
            plan.cudnn_location = c.location;
            plan.kept.push_back(
                {"cudnn", "cuDNN " + c.version.str() + " at " + c.path, "already installed, built for CUDA " + std::to_string(major)});
            return;
        }
    }

    const auto install = cudnn_install(t.distro, *version, cuda, plan.toolkit_path, ctx.request.offline, ctx.kb);
    plan.cudnn_location = install.location;
    Step s;
    s.layer = "cudnn";
    s.title = install.title;
    s.notes = install.notes;
    s.commands = install.commands;
    s.checks = install.checks;
    plan.steps.push_back(std::move(s));
}

void add_framework_step(StepContext& ctx) {
    const auto& t = ctx.target;
    auto& plan = ctx.plan;
    const auto& c = ctx.chosen;
    for (const auto& f : t.frameworks) {
        auto v = Version::parse(f.version);
        if (f.name != c.framework || !v || v->truncated(c.release.size()) != c.release || f.cuda.empty()) continue;
        auto fc = Version::parse(f.cuda);
        if (fc && fc->truncated(c.cuda.size()) == c.cuda) {
            plan.kept.push_back({"framework", f.name + " " + f.version, "already installed with CUDA " + f.cuda});
            return;
        }
    }
    Step s;
    s.layer = "framework";
    const std::string venv = fmt::format("~/venvs/{}-{}", c.framework, c.variant == "system" ? c.release.str() : c.variant);
    s.title = fmt::format("{} in a virtual environment ({})", c.label, venv);
    s.notes.emplace_back(
        "A virtual environment: Ubuntu 23.04+ and Debian 12 refuse pip installs into the system Python (PEP 668), "
        "and a venv keeps this CUDA variant apart from others.");
    if (t.distro.apt()) s.commands.push_back(install_packages(t.distro, {"python3-venv"}));
    s.commands.push_back("python3 -m venv " + venv);
    s.commands.push_back(". " + venv + "/bin/activate");
    s.commands.emplace_back("python -m pip install --upgrade pip");
    // The user's own specifiers (--framework 'torch>=2.4.1,<2.6') ride along, so pip picks
    // within the series only what they allow: the series 2.4 holds 2.4.0, which >=2.4.1 does not.
    const std::string also =
        ctx.request.framework && !ctx.request.framework->clauses.empty() ? "," + ctx.request.framework->clause_text() : "";
    if (c.framework == "torch") {
        const auto index =
            ctx.kb.package_name("torch_index_url", {{"variant", c.variant}}).value_or("https://download.pytorch.org/whl/" + c.variant);
        s.notes.push_back(fmt::format("The index URL picks the CUDA variant: the plain PyPI wheel of a release may be another CUDA."));
        s.commands.push_back(fmt::format("python -m pip install 'torch=={}.*{}' --index-url {}", c.release.str(), also, index));
        s.checks.emplace_back(
            "python -c \"import torch; assert torch.cuda.is_available(), 'no GPU'; print(torch.__version__, torch.version.cuda, "
            "torch.cuda.get_device_name(0))\"");
        s.checks.emplace_back(
            "python -c \"import torch; x = torch.ones(4, device='cuda'); print((x * 2).sum().item())\"   # runs a kernel: "
            "catches 'no kernel image'");
    } else if (c.framework == "tensorflow") {
        if (c.variant == "and-cuda") {
            s.notes.push_back(fmt::format("[and-cuda] installs the CUDA {} and cuDNN {} wheels TensorFlow {} was tested with.",
                                          c.cuda.str(), c.tested_cudnn ? c.tested_cudnn->str() : "?", c.release.str()));
            s.commands.push_back(fmt::format("python -m pip install 'tensorflow[and-cuda]=={}.*{}'", c.release.str(), also));
        } else {
            s.notes.push_back(fmt::format("TensorFlow {} loads the system's CUDA {} and cuDNN {} (the steps above) by their major version.",
                                          c.release.str(), c.cuda.str(), c.tested_cudnn ? c.tested_cudnn->str() : "?"));
            s.commands.push_back(fmt::format("python -m pip install '{}=={}.*{}'", c.release.major() >= 2 ? "tensorflow" : "tensorflow-gpu",
                                             c.release.str(), also));
        }
        s.checks.emplace_back(
            "python -c \"import tensorflow as tf; g = tf.config.list_physical_devices('GPU'); print(g); assert g, 'no GPU'\"");
    } else {
        s.notes.emplace_back("JAX brings CUDA as wheels: keep LD_LIBRARY_PATH free of other CUDA libraries, which would override them.");
        s.commands.push_back(fmt::format("python -m pip install 'jax[{}]=={}'", c.variant, c.release.str()));
        s.checks.emplace_back("python -c \"import jax; d = jax.devices(); print(d); assert d[0].platform == 'gpu', 'no GPU'\"");
    }
    s.checks.emplace_back("cudoctor check");
    plan.steps.push_back(std::move(s));
}

}  // namespace cudoctor::recipe::detail
