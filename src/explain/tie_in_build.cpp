// Tie-ins of the build-time causes (host compiler, nvcc, extension CUDA, OpenCV) and the
// context-only ones (out of memory, asynchronous errors, broken downloads, apt).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "explain/tie_in_util.hpp"
#include "recipe/install.hpp"

namespace cudoctor::explain::detail {

void tie_unsupported_gcc(Cause& c, const snapshot::Snapshot& snap, const kb::Kb&) {
    const auto& p = snap.platform;
    std::optional<int> limit;
    if (auto v = Version::parse(c.value("gcc_max"))) limit = v->major();
    if (limit) context(c, "the log: nvcc accepts gcc up to " + std::to_string(*limit));
    if (p.gcc_default) {
        if (limit && *p.gcc_default > *limit) confirms(c, fmt::format("the default gcc here is {}, newer than {}", *p.gcc_default, *limit));
        else if (limit) contradicts(c, fmt::format("the default gcc here is {}, which that nvcc accepts", *p.gcc_default));
        else context(c, fmt::format("the default gcc here is {}", *p.gcc_default));
    }
    std::vector<std::string> fix;
    for (const auto& t : snap.toolkits) {
        if (!t.max_gcc) continue;
        context(c, fmt::format("CUDA {} at {} accepts gcc up to {} ({})", t.version, t.path, *t.max_gcc, t.max_gcc_source));
        if (p.gcc_default && *t.max_gcc >= *p.gcc_default && t.has_nvcc && (!limit || *t.max_gcc > *limit))
            fix.push_back(fmt::format("# or build with CUDA {}, which accepts gcc {}: export PATH={}/bin:$PATH CUDA_HOME={}", t.version,
                                      *p.gcc_default, t.path, t.path));
    }
    if (limit) {
        std::optional<int> usable;
        for (int g : p.gcc_installed)
            if (g <= *limit && (!usable || g > *usable)) usable = g;
        if (usable) {
            confirms(c, fmt::format("gcc-{} is installed here and within the limit", *usable));
            fix.insert(fix.begin(), recipe::use_host_gcc(recipe::distro_of(snap), p.gcc_installed, *usable));
        } else {
            fix.insert(fix.begin(), recipe::use_host_gcc(recipe::distro_of(snap), p.gcc_installed, *limit));
        }
    }
    if (!fix.empty()) set_fix(c, fix);
}

namespace {

/// The nvcc the user means: the first on their PATH, else the default toolkit's, else the newest
/// toolkit's; "" when the machine has none.
std::string users_nvcc(const snapshot::Snapshot& snap) {
    if (!snap.environment.nvcc_on_path.empty()) return snap.environment.nvcc_on_path.front();
    const snapshot::Toolkit* pick = nullptr;
    for (const auto& t : snap.toolkits) {
        if (!t.has_nvcc || t.nvcc_path.empty()) continue;
        if (t.is_default) return t.nvcc_path;
        if (!pick || Version::parse(t.version) > Version::parse(pick->version)) pick = &t;
    }
    return pick ? pick->nvcc_path : std::string();
}

/// Fixes for a command that does not find nvcc although the user's PATH has it: PATH exports
/// cannot help, the command must be given nvcc's full path or the user's PATH.
std::vector<std::string> another_path_fix(const std::string& nvcc) {
    return {fmt::format("sudo {} …   # nvcc by its full path: sudo searches its secure_path, not your PATH", nvcc),
            "sudo env \"PATH=$PATH\" make …   # or pass your PATH through to the one command run as root",
            "# or run the build without sudo (services and containers: set PATH in their own environment)"};
}

}  // namespace

void tie_sudo_secure_path(Cause& c, const snapshot::Snapshot& snap, const kb::Kb&) {
    const auto& env = snap.environment;
    const std::string nvcc = users_nvcc(snap);
    if (!env.nvcc_on_path.empty())
        confirms(c, "nvcc is on your PATH here (" + env.nvcc_on_path.front() +
                        "), so only a command that does not use your PATH misses it: sudo uses its secure_path");
    else if (!nvcc.empty()) context(c, "nvcc is at " + nvcc + ", but not on your PATH either");
    if (nvcc.empty()) {
        contradicts(c, "no CUDA toolkit with nvcc on this machine: under sudo or not, there is no nvcc to find");
        return;
    }
    set_fix(c, another_path_fix(nvcc));
}

void tie_nvcc_not_found(Cause& c, const snapshot::Snapshot& snap, const kb::Kb& kb) {
    const auto& env = snap.environment;
    if (!env.nvcc_on_path.empty()) {
        // The user's shell finds nvcc: the failing command ran with another PATH, and no export in
        // the user's shell reaches it.
        contradicts(c, "nvcc is on PATH here: " + env.nvcc_on_path.front() +
                           " (the failing command ran with another PATH: sudo, a service, a container)");
        set_fix(c, another_path_fix(env.nvcc_on_path.front()));
        return;
    }
    if (!env.cuda_home) confirms(c, "CUDA_HOME is not set here");
    else context(c, "CUDA_HOME=" + *env.cuda_home);
    const snapshot::Toolkit* with_nvcc = nullptr;
    for (const auto& t : snap.toolkits)
        if (t.has_nvcc && (!with_nvcc || Version::parse(t.version) > Version::parse(with_nvcc->version))) with_nvcc = &t;
    // Prefer the toolkit matching PyTorch's CUDA: extensions must be built with it.
    std::string torch_cuda;
    for (const auto& f : snap.frameworks)
        if (f.name == "torch" && f.cuda) torch_cuda = *f.cuda;
    for (const auto& t : snap.toolkits)
        if (t.has_nvcc && !torch_cuda.empty() && Version::parse(t.version) && Version::parse(torch_cuda) &&
            Version::parse(t.version)->truncated(2) == Version::parse(torch_cuda)->truncated(2))
            with_nvcc = &t;
    if (with_nvcc) {
        if (!with_nvcc->on_path)
            confirms(c, "CUDA " + with_nvcc->version + " has nvcc at " + with_nvcc->nvcc_path + ", but its bin/ is not on PATH");
        set_fix(c, {recipe::path_exports(with_nvcc->path), "export CUDA_HOME=" + with_nvcc->path});
        return;
    }
    confirms(c, "no CUDA toolkit with nvcc on this machine (the CUDA inside pip or conda packages has no compiler)");
    auto v = Version::parse(torch_cuda.empty() ? snap.driver.max_cuda : torch_cuda);
    if (v)
        set_fix(c, {recipe::toolkit_fix(snap, *v, kb),
                    "export CUDA_HOME=" + recipe::toolkit_dir(*v) + " PATH=" + recipe::toolkit_dir(*v) + "/bin:$PATH"});
}

void tie_cuda_version_mismatch_build(Cause& c, const snapshot::Snapshot& snap, const kb::Kb& kb) {
    auto want = Version::parse(c.value("torch_cuda"));
    for (const auto& f : snap.frameworks)
        if (f.name == "torch" && f.cuda) {
            context(c, "torch " + f.version + " here is built for CUDA " + *f.cuda);
            if (!want) want = Version::parse(*f.cuda);
        }
    if (auto got = Version::parse(c.value("detected_cuda")))
        context(c, "the log: nvcc found was CUDA " + got->str() + ", PyTorch's is " + (want ? want->str() : std::string("?")));
    if (!want) return;
    for (const auto& t : snap.toolkits) {
        auto tv = Version::parse(t.version);
        if (!tv || !t.has_nvcc) continue;
        if (tv->truncated(2) == want->truncated(2)) {
            confirms(c, "CUDA " + t.version + " (PyTorch's version) is installed at " + t.path +
                            (snap.environment.cuda_home && *snap.environment.cuda_home == t.path ? ""
                                                                                                 : ", but CUDA_HOME does not point to it"));
            set_fix(c, {"export CUDA_HOME=" + t.path + " PATH=" + t.path + "/bin:$PATH",
                        "# then rebuild the extension (pip install --no-build-isolation …)"});
            return;
        }
    }
    confirms(c, "no toolkit of PyTorch's CUDA " + want->str() + " is installed here");
    set_fix(c, {recipe::toolkit_fix(snap, *want, kb), "export CUDA_HOME=" + recipe::toolkit_dir(*want),
                "# or install the PyTorch build for the CUDA you have"});
}

void tie_opencv_cuda(Cause& c, const snapshot::Snapshot& snap, const kb::Kb& kb) {
    std::vector<std::string> fix(c.fix.begin(), c.fix.end());
    if (!snap.gpus.empty() && !snap.gpus.front().compute_capability.empty())
        fix.push_back("-D CUDA_ARCH_BIN=" + snap.gpus.front().compute_capability + "   # this GPU (" + snap.gpus.front().name + ")");
    if (!c.value("missing").empty() ||
        std::any_of(c.matched_lines.begin(), c.matched_lines.end(), [](const MatchedLine& l) { return l.pattern == "cmake-no-cudnn"; })) {
        if (snap.cudnn.empty()) {
            confirms(c, "no cuDNN on this machine for CMake to find");
            fix.push_back(recipe::cudnn_fix(snap, Version({9}), Version({12}), kb));
        }
        for (const auto& d : snap.cudnn) {
            context(c,
                    "cuDNN " + d.version + " is at " + d.path + (d.header_version.empty() ? " (no headers: install the -dev package)" : ""));
            if (!d.header_version.empty()) {
                fix.push_back("-D CUDNN_LIBRARY=" + d.path + "/libcudnn.so -D CUDNN_INCLUDE_DIR=" + d.path.substr(0, d.path.rfind('/')) +
                              "/include");
                break;
            }
        }
    }
    set_fix(c, fix);
}

void tie_runtime_context(Cause& c, const snapshot::Snapshot& snap, const kb::Kb&) {
    if (c.id == "cuda-oom") {
        if (!c.value("total").empty()) context(c, "the log: GPU " + c.value("gpu_index") + " has " + c.value("total") + " in total");
        if (!c.value("requested").empty()) context(c, "the log: the failing allocation asked for " + c.value("requested"));
        for (const auto& g : snap.gpus) context(c, "GPU here: " + (g.name.empty() ? g.pci_device_id : g.name));
    } else if (c.id == "async-error") {
        if (!c.value("assertion").empty())
            context(c, "the device-side check that failed: `" + c.value("assertion") + "` (an index or label out of range)");
    } else if (c.id == "runfile-corrupt") {
        if (!c.value("actual_md5").empty())
            context(c, "the log: the archive's MD5 is " + c.value("actual_md5") + ", the installer expects " + c.value("expected_md5"));
        if (!c.value("file").empty())
            context(c, "the log: " + c.value("file") + " is not an installer (a shell error on its first lines: an HTML page)");
    } else if (c.id == "apt-conflict") {
        if (auto it = c.values.find("package"); it != c.values.end())
            context(c, fmt::format("the log: packages that cannot be installed: {}", fmt::join(it->second, ", ")));
        if (!snap.driver.packages.empty())
            context(c, "driver packages installed here: " + fmt::format("{}", fmt::join(snap.driver.packages, ", ")));
    }
}

}  // namespace cudoctor::explain::detail
