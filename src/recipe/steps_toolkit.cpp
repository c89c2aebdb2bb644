// The gcc and toolkit steps: cuda-toolkit-X-Y from NVIDIA's repository (never the cuda / cuda-X-Y
// meta-packages, which pull a driver), the WSL-Ubuntu repository under WSL2, or the runfile with
// --toolkit and no driver; the PATH / LD_LIBRARY_PATH lines and ld.so.conf.d for services. When
// the OS gcc is newer than the toolkit accepts, gcc-N first (no forced --override).
#include <algorithm>

#include <fmt/format.h>

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
                                       t.os_id + " " + t.os_version, *t.gcc_default)});
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
        s.commands.push_back(uses_apt(t) ? fmt::format("sudo apt-get install -y gcc-{0} g++-{0}", n)
                                         : fmt::format("# install gcc {0} and g++ {0} with this distribution's packages", n));
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
    const std::string repo = cuda_repo_of(t, ctx.kb);
    const auto coverage = repo.empty() ? std::nullopt : ctx.kb.cuda_repository(repo);
    const bool deb = !ctx.request.offline && uses_apt(t) && coverage && coverage->publishes(minor);
    const auto rel = ctx.kb.toolkit_release(release);
    const std::string mm = fmt::format("{}-{}", minor.major(), minor.minor());

    Step s;
    s.layer = "toolkit";
    if (deb) {
        plan.toolkit_method = "deb";
        const auto pkg =
            ctx.kb.package_name("cuda_toolkit", {{"major", std::to_string(minor.major())}, {"minor", std::to_string(minor.minor())}})
                .value_or("cuda-toolkit-" + mm);
        s.title = fmt::format("CUDA {} toolkit ({}, toolkit only){}", minor.str(), pkg, t.wsl ? " from the WSL-Ubuntu repository" : "");
        s.notes.push_back(
            fmt::format("{} installs the toolkit without a driver. Never `cuda` or `cuda-{}`: those meta-packages pull a "
                        "driver and replace the one that works.",
                        pkg, mm));
        if (t.wsl)
            s.notes.emplace_back(
                "Under WSL2 only the wsl-ubuntu repository: the ubuntu2204/ubuntu2404 ones carry driver packages that break WSL2's CUDA.");
        for (auto& line : keyring_commands(repo, t, ctx.kb)) s.commands.push_back(line);
        s.commands.push_back("sudo apt-get install -y " + pkg);
    } else {
        plan.toolkit_method = "runfile";
        const std::string runfile = rel ? rel->runfile : "";
        s.title = fmt::format("CUDA {} toolkit from the runfile (--toolkit: no driver)", release.str());
        if (ctx.request.offline)
            s.notes.push_back("Offline: bring the runfile on other media and check it with `cudoctor verify-installer " + runfile +
                              "` first.");
        else if (!coverage || !coverage->publishes(minor))
            s.notes.push_back(fmt::format("NVIDIA's repository for {} {} has no cuda-toolkit-{} ({}): the runfile is the route.", t.os_id,
                                          t.os_version, mm, repo.empty() ? "no repository" : "cuda_repos.tsv"));
        s.notes.emplace_back("--toolkit installs the toolkit only: the runfile's bundled driver is never installed over the one that works.");
        if (!ctx.request.offline) {
            const auto url =
                ctx.kb.package_name("cuda_runfile_url", {{"release", release.str()}, {"runfile", runfile}})
                    .value_or("https://developer.download.nvidia.com/compute/cuda/" + release.str() + "/local_installers/" + runfile);
            s.commands.push_back("wget -N " + url);
        }
        s.commands.push_back(fmt::format("sudo sh {} --silent --toolkit --toolkitpath={}", runfile, dir));
    }
    // The environment: this shell, future shells, and services (which read no ~/.bashrc).
    s.commands.push_back(fmt::format("echo 'export PATH={}/bin${{PATH:+:$PATH}}' >> ~/.bashrc", dir));
    s.commands.push_back(fmt::format("echo 'export LD_LIBRARY_PATH={}/lib64${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}' >> ~/.bashrc", dir));
    s.commands.push_back(fmt::format("export PATH={}/bin${{PATH:+:$PATH}}", dir));
    s.commands.push_back(
        fmt::format("echo {}/lib64 | sudo tee /etc/ld.so.conf.d/cuda-{}.conf && sudo ldconfig   # services and systemd units", dir, mm));
    s.checks.push_back(fmt::format("{}/bin/nvcc --version | grep -q 'release {}'", dir, minor.str()));
    s.checks.push_back(fmt::format(
        "printf 'int main(){{return 0;}}\\n' > /tmp/cudoctor-plan.cu && {}/bin/nvcc /tmp/cudoctor-plan.cu -o /tmp/cudoctor-plan && /tmp/cudoctor-plan",
        dir));
    s.checks.emplace_back("ldconfig -p | grep -q libcudart.so");
    plan.steps.push_back(std::move(s));
}

}  // namespace cudoctor::recipe::detail
