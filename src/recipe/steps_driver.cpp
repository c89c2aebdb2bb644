// The driver step: routed by situation (the distribution's packages, NVIDIA's CUDA repository,
// the runfile only offline), with the nouveau blacklist and the Secure Boot key where this machine
// needs them, and the reboot. Never inside WSL2 or a VM without the GPU: those say why instead.
#include <algorithm>

#include <fmt/format.h>

#include "recipe/install.hpp"
#include "recipe/steps.hpp"

namespace cudoctor::recipe::detail {

namespace {

std::string version_check(const Version& need) {
    return fmt::format(
        "v=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1) && "
        "[ \"$(printf '%s\\n' {0} \"$v\" | sort -V | head -n1)\" = {0} ] && echo \"driver $v >= {0}\"",
        need.str());
}

}  // namespace

void add_driver_step(StepContext& ctx) {
    const auto& t = ctx.target;
    auto& plan = ctx.plan;
    const auto& need = plan.min_driver;
    if (!t.gpu_visible) {
        plan.kept.push_back({"driver", "no driver step",
                             fmt::format("this {} virtual machine does not see the GPU: a driver inside it cannot help until the "
                                         "hypervisor passes the GPU through (PCI passthrough or vGPU)",
                                         t.virtualization)});
        return;
    }
    if (t.distro.wsl) {
        const auto rel = plan.cuda ? ctx.kb.toolkit_release(*plan.cuda) : std::nullopt;
        plan.kept.push_back(
            {"driver", "the Windows driver",
             fmt::format("under WSL2 the Windows NVIDIA driver serves the GPU (/usr/lib/wsl/lib/libcuda.so.1){}; "
                         "never install a Linux driver inside WSL2",
                         rel && rel->min_windows_driver ? " — it must be ≥ " + rel->min_windows_driver->str() + " on Windows" : "")});
        plan.driver_after = t.driver;
        return;
    }
    if (!need) return;
    if (t.driver && *t.driver >= *need) {
        const auto max = ctx.kb.max_cuda_for(*t.driver);
        plan.kept.push_back({"driver", "driver " + t.driver->str(),
                             fmt::format("it runs CUDA ≤ {}; CUDA {} needs ≥ {}: a driver that works is not upgraded",
                                         max ? max->str() : "?", plan.cuda ? plan.cuda->str() : "?", need->str())});
        plan.driver_after = t.driver;
        return;
    }

    DriverNeed driver;
    driver.architectures = t.gpu_architectures;
    driver.min_branch = need->major();
    driver.nouveau = t.nouveau;
    driver.secure_boot = t.secure_boot;
    const auto rel = toolkit_update(*plan.cuda, std::nullopt, ctx.kb);
    if (ctx.request.offline && rel && rel->runfile_driver && *rel->runfile_driver >= *need) {
        driver.offline_runfile = rel->runfile;
        driver.offline_runfile_driver = rel->runfile_driver;
    }
    const auto install = driver_install(t.distro, driver, ctx.kb);
    plan.driver_branch = install.branch;
    plan.driver_after = install.version ? *install.version : install.branch > need->major() ? Version({install.branch}) : *need;

    Step s;
    s.layer = "driver";
    s.title = install.title() + " (first, and clean)";
    s.notes.emplace_back("The driver goes first: every later step is checked against it. Reboot before going on.");
    s.notes.insert(s.notes.end(), install.notes.begin(), install.notes.end());
    s.commands = install.commands;
    s.reboot = install.reboot;

    const auto modules = ctx.kb.kernel_modules_for(t.architecture);
    // Debian's own nvidia-driver (535 on Debian 12), not its legacy nvidia-tesla-470-driver.
    const auto release = ctx.kb.distro_release(t.distro.id, t.distro.version);
    const bool own_branch =
        install.source == DriverSource::distribution && t.distro.debian() && release && release->distro_driver_branch == install.branch;
    plan.chosen.push_back(
        {"driver", fmt::format("branch {}{}", install.branch, install.open ? " (open kernel modules)" : ""),
         fmt::format("{}; {}", t.driver ? "the installed " + t.driver->str() + " is older than " + need->str() : "no driver is installed",
                     own_branch                                ? std::string("the distribution's own driver branch is new enough")
                     : install.source == DriverSource::runfile ? "the driver the CUDA runfile bundles (offline)"
                     : modules && modules->driver_branch && *modules->driver_branch == install.branch
                         ? fmt::format("{} is the branch driver_kernel_modules.tsv names for {} GPUs", *modules->driver_branch, t.architecture)
                         : std::string("the branch CUDA needs"))});
    s.checks.emplace_back("nvidia-smi");
    s.checks.push_back(version_check(*need));
    plan.steps.push_back(std::move(s));
}

}  // namespace cudoctor::recipe::detail
