// Tie-ins of the library and framework causes: missing cudart / cuDNN / other libraries,
// no kernel image, framework without CUDA.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/text.hpp"
#include "explain/tie_in_util.hpp"
#include "recipe/install.hpp"

namespace cudoctor::explain::detail {

namespace {

/// A folder holding the library and how it got there.
struct Copy {
    std::string dir;
    std::string what;  ///< "cuDNN 9.1.0 (pip)", "CUDA 12.4 toolkit"
    bool visible = false;
};

std::string folder_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(0, slash);
}

/// The CUDA major of the frameworks and toolkits here, for "pip install …-cuXX".
int cuda_major_here(const snapshot::Snapshot& snap) {
    for (const auto& f : snap.frameworks)
        if (f.cuda)
            if (auto v = Version::parse(*f.cuda)) return v->major();
    for (const auto& t : snap.toolkits)
        if (auto v = Version::parse(t.version)) return v->major();
    if (auto v = Version::parse(snap.driver.max_cuda)) return v->major();
    return 12;
}

/// The CUDA majors (11 and newer: those NVIDIA publishes nvidia-cudnn-cuNN wheels for) that
/// data/cudnn_cuda.tsv has a build of cuDNN `cudnn_major` for, in order.
std::vector<int> cuda_majors_with_cudnn(const kb::Kb& kb, int cudnn_major) {
    std::set<int> majors;
    for (const auto& row : kb.cudnn_table()) {
        if (row.cudnn_first.major() > cudnn_major || row.cudnn_last.major() < cudnn_major) continue;
        for (int m = std::max(row.cuda_min.major(), 11); m <= row.cuda_max.major(); ++m) majors.insert(m);
    }
    return {majors.begin(), majors.end()};
}

std::vector<Copy> copies_of(const Cause& c, const std::string& soname, int major, const snapshot::Snapshot& snap) {
    std::vector<Copy> out;
    if (c.id == "missing-cudnn") {
        for (const auto& d : snap.cudnn)
            if (auto v = Version::parse(d.version); v && v->major() == major)
                out.push_back({d.path, "cuDNN " + d.version + " (" + d.location + ")", d.loader_visible});
    } else if (c.id == "missing-cudart") {
        for (const auto& t : snap.toolkits)
            if (!t.lib_dir.empty() && soname_major(t.cudart_soname) == major)
                out.push_back({t.lib_dir, "CUDA " + t.version + " (" + std::string(snapshot::to_string(t.install_method)) + ")",
                               t.cudart_loader_visible});
    }
    // Any folder on LD_LIBRARY_PATH or in the loader cache that has it is visible by definition.
    for (const auto& e : snap.environment.ld_library_path)
        if (std::find(e.cuda_libraries.begin(), e.cuda_libraries.end(), soname) != e.cuda_libraries.end())
            out.push_back({e.path, "LD_LIBRARY_PATH entry", true});
    for (const auto& e : snap.environment.loader_cache)
        if (e.soname == soname) out.push_back({folder_of(e.path), "loader cache entry " + e.path, true});
    return out;
}

std::string library_family(const Cause& c) {
    return c.id == "missing-cudnn" ? "cuDNN" : c.id == "missing-cudart" ? "the CUDA runtime" : "it";
}

}  // namespace

void tie_missing_library(Cause& c, const snapshot::Snapshot& snap, const kb::Kb& kb) {
    auto it = c.values.find("soname");
    if (it == c.values.end() || it->second.empty()) return;
    std::vector<std::string> fix;
    for (const auto& soname : it->second) {
        const auto major = soname_major(soname);
        const auto copies = copies_of(c, soname, major.value_or(-1), snap);
        const auto visible = std::find_if(copies.begin(), copies.end(), [](const Copy& k) { return k.visible; });
        if (visible != copies.end()) {
            contradicts(c, fmt::format("{} is found by the loader here: {} in {} (the failing program runs with another "
                                       "library path: a container, a conda env, a service without this LD_LIBRARY_PATH)",
                                       soname, visible->what, visible->dir));
            for (const auto& k : copies)
                if (!k.visible)
                    context(c, fmt::format("also {} in {}, outside the loader's path (found only through a program's own RPATH)", k.what,
                                           k.dir));
            fix.push_back(
                fmt::format("run the failing program with LD_LIBRARY_PATH={}:$LD_LIBRARY_PATH (or inside a container: --gpus all "
                            "and an image that has {})",
                            visible->dir, soname));
            continue;
        }
        if (!copies.empty()) {
            const auto& k = copies.front();
            confirms(c, fmt::format("{} is on this machine, in {} ({}), but that folder is neither in the loader cache "
                                    "(/etc/ld.so.conf.d) nor on LD_LIBRARY_PATH, so dlopen(\"{}\") does not look there",
                                    soname.find(".dll") != std::string::npos
                                        ? soname
                                        : library_family(c) + " " + (major ? std::to_string(*major) : std::string()),
                                    k.dir, k.what, soname));
            fix.push_back("export LD_LIBRARY_PATH=" + k.dir + ":$LD_LIBRARY_PATH   # this shell");
            fix.push_back("echo " + k.dir + " | sudo tee /etc/ld.so.conf.d/cudoctor-" + c.id.substr(c.id.find('-') + 1) +
                          ".conf && sudo ldconfig   # every program");
            continue;
        }
        // Nowhere here: say what there is instead, and how to get the right one.
        std::string found;
        if (c.id == "missing-cudnn")
            for (const auto& d : snap.cudnn) found += (found.empty() ? "" : ", ") + ("cuDNN " + d.version + " in " + d.path);
        if (c.id == "missing-cudart")
            for (const auto& t : snap.toolkits) found += (found.empty() ? "" : ", ") + ("CUDA " + t.version + " in " + t.path);
        confirms(c, "no " + soname + " on this machine" + (found.empty() ? "" : " (there is " + found + ")"));
        const int cuda_major = cuda_major_here(snap);
        if (c.id == "missing-cudnn" && major) {
            // cuDNN `major` built for this machine's CUDA major where the KB has such a build,
            // else for the nearest CUDA major that has one (no cuDNN 8 for CUDA 13 exists).
            const auto built = cuda_majors_with_cudnn(kb, *major);
            std::optional<int> for_cuda;
            for (int m : built)
                if (m <= cuda_major) for_cuda = m;
            if (!for_cuda && !built.empty()) for_cuda = built.front();
            if (!for_cuda) {
                context(c,
                        fmt::format("no build of cuDNN {} for a CUDA that has NVIDIA's pip wheels (CUDA 11 or newer) in data/cudnn_cuda.tsv",
                                    *major));
                continue;
            }
            if (*for_cuda != cuda_major)
                context(c, fmt::format("there is no cuDNN {} for CUDA {}; the newest CUDA with a cuDNN {} build is CUDA {} "
                                       "(the program that wants {} was built with such a CUDA)",
                                       *major, cuda_major, *major, *for_cuda, soname));
            fix.push_back(
                fmt::format("pip install 'nvidia-cudnn-cu{}=={}.*'   # cuDNN {} for CUDA {}; then add its lib folder "
                            "(site-packages/nvidia/cudnn/lib) to LD_LIBRARY_PATH",
                            *for_cuda, *major, *major, *for_cuda));
            if (*major >= 9 && recipe::distro_of(snap).apt())
                fix.push_back(recipe::cudnn_fix(snap, Version({*major}), Version({*for_cuda}), kb));
        } else if (c.id == "missing-cudart" && major) {
            fix.push_back(fmt::format("pip install nvidia-cuda-runtime-cu{}   # or install a CUDA {} toolkit", *major, *major));
        } else if (major) {
            const std::string base = soname.substr(3, soname.find(".so") == std::string::npos ? std::string::npos : soname.find(".so") - 3);
            if (text::starts_with(base, "cublas")) fix.push_back(fmt::format("pip install nvidia-cublas-cu{}", *major));
            else if (text::starts_with(base, "nvrtc")) fix.push_back(fmt::format("pip install nvidia-cuda-nvrtc-cu{}", *major));
            else if (text::starts_with(base, "cufft")) fix.push_back(fmt::format("pip install nvidia-cufft-cu{}", *major));
            else if (text::starts_with(base, "nvJitLink")) fix.push_back(fmt::format("pip install nvidia-nvjitlink-cu{}", *major));
            else fix.push_back(fmt::format("install {} from a CUDA {} toolkit (or its nvidia-* pip wheel)", soname, *major));
        }
    }
    if (!fix.empty()) set_fix(c, fix);
}

void tie_no_kernel_image(Cause& c, const snapshot::Snapshot& snap, const kb::Kb& kb) {
    if (snap.gpus.empty()) {
        context(c, "no NVIDIA GPU on this machine to compare with");
        return;
    }
    const std::string log_cc = capability_of(c.value("sm"));
    std::set<std::string> built;                               // capabilities the log says the build carries
    const std::string supported = c.value("supported_archs");  // split() returns views into it
    for (auto tok : text::split(supported, ' '))
        if (text::starts_with(tok, "sm_")) built.insert(capability_of(tok));
    std::vector<std::string> fix;
    for (const auto& g : snap.gpus) {
        if (g.compute_capability.empty()) continue;
        const std::string sm = "sm_" + g.compute_capability.substr(0, g.compute_capability.find('.')) +
                               g.compute_capability.substr(g.compute_capability.find('.') + 1);
        const std::string name = g.name.empty() ? g.pci_device_id : g.name;
        if (!log_cc.empty()) {
            if (log_cc == g.compute_capability) confirms(c, fmt::format("this machine's {} is {} too", name, sm));
            else context(c, fmt::format("the log's GPU is sm_{}; this machine's {} is {}", c.value("sm").substr(3), name, sm));
        }
        if (!built.empty()) {
            if (built.count(g.compute_capability))
                contradicts(c, fmt::format("the build in the log carries {} ({}'s architecture)", sm, name));
            else
                confirms(c, fmt::format("{} is not among the architectures the build in the log carries ({})", sm,
                                        text::trim(c.value("supported_archs"))));
        }
        for (const auto& f : snap.frameworks) {
            if (f.cuda_archs.empty()) continue;
            const bool has = std::find(f.cuda_archs.begin(), f.cuda_archs.end(), sm) != f.cuda_archs.end();
            if (has) contradicts(c, fmt::format("{} {} here carries {}", f.name, f.version, sm));
            else confirms(c, fmt::format("{} {} here carries {} but not {}", f.name, f.version, fmt::join(f.cuda_archs, " "), sm));
        }
        // A PyTorch wheel that carries this architecture and runs on this driver.
        const auto max = Version::parse(snap.driver.max_cuda);
        std::optional<kb::TorchWheel> pick;
        for (const auto& w : kb.torch_table()) {
            if (std::find(w.cuda_archs.begin(), w.cuda_archs.end(), g.compute_capability) == w.cuda_archs.end()) continue;
            if (max && w.cuda.truncated(2) > max->truncated(2)) continue;
            if (!pick || w.torch > pick->torch || (w.torch == pick->torch && w.cuda > pick->cuda)) pick = w;
        }
        if (pick)
            fix.push_back(fmt::format("pip install torch=={}.* --index-url https://download.pytorch.org/whl/{}   # carries {}{}",
                                      pick->torch.str(), pick->variant, sm,
                                      max ? " and runs on this driver (CUDA ≤ " + max->str() + ")" : ""));
        if (auto range = kb.toolkits_supporting(g.compute_capability))
            fix.push_back(
                fmt::format("# building it yourself: CUDA {} or newer compiles for {}; TORCH_CUDA_ARCH_LIST=\"{}\" / CUDA_ARCH_BIN={} / "
                            "-gencode arch=compute_{},code={}",
                            range->first.str(), sm, g.compute_capability, g.compute_capability, sm.substr(3), sm));
        break;  // the first GPU with a known capability decides the fix
    }
    if (!fix.empty()) set_fix(c, fix);
}

void tie_torch_cuda_unavailable(Cause& c, const snapshot::Snapshot& snap, const kb::Kb& kb) {
    if (snap.gpus.empty()) confirms(c, "no NVIDIA GPU on this machine");
    bool any = false;
    std::vector<std::string> fix;
    const auto max = Version::parse(snap.driver.max_cuda);
    for (const auto& f : snap.frameworks) {
        if (f.name != "torch" && f.name != "tensorflow" && f.name != "jaxlib" && f.name != "jax") continue;
        any = true;
        if (!f.cuda) {
            confirms(c, f.name + " " + f.version + " here is a CPU-only build (in " + f.python + ")");
            if (f.name != "torch") continue;
            auto tv = Version::parse(f.version);
            std::optional<kb::TorchWheel> best;
            if (tv)
                for (const auto& w : kb.torch_wheels(*tv))
                    if ((!max || w.cuda.truncated(2) <= max->truncated(2)) && (!best || w.cuda > best->cuda)) best = w;
            if (best)
                fix.push_back(fmt::format("pip install --force-reinstall torch=={} --index-url https://download.pytorch.org/whl/{}",
                                          tv->str(), best->variant));
        } else {
            context(c, f.name + " " + f.version + " here is built for CUDA " + *f.cuda);
        }
    }
    if (!any) context(c, "no PyTorch, TensorFlow or JAX found in this machine's Python sites");
    if (!snap.gpus.empty() && snap.driver.kernel_module_version.empty())
        confirms(c, "no NVIDIA driver is loaded here, so no CUDA build could use the GPU either");
    if (!fix.empty()) set_fix(c, fix);
}

}  // namespace cudoctor::explain::detail
