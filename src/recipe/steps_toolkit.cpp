// The gcc and toolkit steps: cuda-toolkit-X-Y from NVIDIA's repository (never the cuda / cuda-X-Y
// meta-packages, which pull a driver), the WSL-Ubuntu repository under WSL2, or the runfile with
// --toolkit and no driver; the PATH / LD_LIBRARY_PATH lines and ld.so.conf.d for services. When
// the OS gcc is newer than the toolkit accepts, gcc-N first (no forced --override).
#include <algorithm>

#include <fmt/format.h>

#include "recipe/install.hpp"
#include "recipe/steps.hpp"

namespace cudoctor::recipe::detail {

namespace {

bool has_toolkit(const Target& t, const Version& minor) {
    return std::any_of(t.toolkits.begin(), t.toolkits.end(), [&](const auto& tk) { return tk.version.truncated(2) == minor; });
}

}  // namespace

void add_gcc_step(StepContext& ctx) {
    const auto& t = ctx.target;
    auto& plan = ctx.plan;
    const auto max_gcc = ctx.kb.max_gcc_for(*plan.toolkit_release);
    if (!max_gcc || !t.gcc_default || *t.gcc_default <= *max_gcc) {
        if (max_gcc && t.gcc_default)
            plan.kept.push_back({"gcc", fmt::format("gcc {}", *t.gcc_default),
                                 fmt::format("CUDA {} accepts gcc ≤ {}", plan.toolkit_release->str(), *max_gcc)});
        return;
    }
    const int n = *max_gcc;
    plan.gcc = n;
    plan.chosen.push_back({"gcc", fmt::format("gcc-{}", n),
                           fmt::format("CUDA {} accepts gcc ≤ {} (cuda_gcc.tsv); {} defaults to gcc {}", plan.toolkit_release->str(), n,
                                       t.distro.id + " " + t.distro.version, *t.gcc_default)});
    Step s;
    s.layer = "gcc";
    s.title = fmt::format("gcc-{} for nvcc (the OS default gcc {} is too new for CUDA {})", n, *t.gcc_default, plan.toolkit_release->str());
    s.notes.push_back(
        fmt::format("nvcc rejects gcc {} (\"unsupported GNU version! gcc versions later than {} are not supported\"). "
                    "Install gcc-{} and make it the default gcc; the distribution's gcc {} stays installed.",
                    *t.gcc_default, n, n, *t.gcc_default));
    s.notes.emplace_back(
        "After the driver on purpose: its kernel module was built with the distribution's gcc. "
        "Switch back any time: sudo update-alternatives --config gcc");
    s.notes.push_back(
        fmt::format("Per project instead of system-wide: export NVCC_PREPEND_FLAGS='-ccbin /usr/bin/g++-{0}' "
                    "or cmake -DCMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-{0}",
                    n));
    const bool have = std::find(t.gcc_installed.begin(), t.gcc_installed.end(), n) != t.gcc_installed.end();
    if (!have) {
        s.commands.push_back(install_packages(t.distro, {fmt::format("gcc-{}", n), fmt::format("g++-{}", n)}));
    }
    s.commands.push_back(
        fmt::format("sudo update-alternatives --install /usr/bin/gcc gcc /usr/bin/gcc-{0} 100 --slave /usr/bin/g++ g++ /usr/bin/g++-{0}", n));
    s.commands.push_back(
        fmt::format("sudo update-alternatives --install /usr/bin/gcc gcc /usr/bin/gcc-{0} 50 --slave /usr/bin/g++ g++ /usr/bin/g++-{0}",
                    *t.gcc_default));
    s.commands.push_back(fmt::format("sudo update-alternatives --set gcc /usr/bin/gcc-{}", n));
    s.checks.push_back(fmt::format("gcc -dumpversion | grep -q '^{}' && g++ -dumpversion | grep -q '^{}'", n, n));
    plan.steps.push_back(std::move(s));
}

void add_toolkit_step(StepContext& ctx) {
    const auto& t = ctx.target;
    auto& plan = ctx.plan;
    const Version release = *plan.toolkit_release;
    const Version minor = release.truncated(2);
    const std::string dir = plan.toolkit_path;
    if (has_toolkit(t, minor)) {
        for (const auto& tk : t.toolkits)
            if (tk.version.truncated(2) == minor) {
                plan.toolkit_path = tk.path;
                plan.kept.push_back(
                    {"toolkit", "CUDA " + tk.version.str() + " at " + tk.path, "the toolkit the set needs is already installed"});
            }
        return;
    }
    const auto install = toolkit_install(t.distro, release, dir, ctx.request.offline, ctx.kb);
    plan.toolkit_method = install.method;
    Step s;
    s.layer = "toolkit";
    s.title = install.method == "deb" ? fmt::format("CUDA {} toolkit ({}, toolkit only){}", minor.str(), install.package,
                                                    t.distro.wsl ? " from the WSL-Ubuntu repository" : "")
                                      : fmt::format("CUDA {} toolkit from the runfile (--toolkit: no driver)", release.str());
    s.notes = install.notes;
    s.commands = install.commands;
    s.checks = install.checks;
    plan.steps.push_back(std::move(s));
}

}  // namespace cudoctor::recipe::detail
