// Framework rules: a CPU-only build on a GPU machine, a build without kernels for this GPU,
// TensorFlow on system CUDA of other versions, extension builds with another nvcc, and Triton
// without a compiler or Python headers.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpucode/compatibility.hpp"
#include "host/host.hpp"

#include "recipe/build_targets.hpp"
#include "recipe/install.hpp"
#include "rules/rule_util.hpp"

namespace cudoctor::rules::detail {
namespace {

using snapshot::Evidence;
using snapshot::Finding;
using snapshot::Layer;
using snapshot::Severity;
using snapshot::Snapshot;

std::string python_of(const snapshot::Framework& fw) { return fw.interpreter.empty() ? "python3" : fw.interpreter; }

/// "12.1" → "cu121".
std::string torch_variant(const std::string& cuda) {
    auto v = Version::parse(cuda);
    return v ? fmt::format("cu{}{}", v->major(), v->minor()) : std::string();
}

/// The newest CUDA wheel variant of this torch release that the driver can run (all when no
/// driver limit is known).
std::string best_torch_variant(const Snapshot& s, const kb::Kb& kb, const snapshot::Framework& fw, const std::string& need_cc = {}) {
    auto tv = Version::parse(fw.version);
    auto max = Version::parse(s.driver.max_cuda);
    std::string best;
    Version best_cuda;
    auto consider = [&](const kb::TorchWheel& w) {
        if (max && w.cuda.truncated(2) > *max) return;
        if (!need_cc.empty() && std::find(w.cuda_archs.begin(), w.cuda_archs.end(), need_cc) == w.cuda_archs.end()) return;
        if (best.empty() || w.cuda > best_cuda) {
            best = w.variant;
            best_cuda = w.cuda;
        }
    };
    if (tv)
        for (const auto& w : kb.torch_wheels(*tv)) consider(w);
    if (best.empty() && !need_cc.empty())  // another torch release has it
        for (const auto& w : kb.torch_table()) consider(w);
    return best;
}

std::vector<Finding> cpu_only_build(const Snapshot& s, const kb::Kb& kb) {
    if (s.gpus.empty()) return {};
    std::vector<Finding> out;
    for (const auto& fw : s.frameworks) {
        if (fw.cuda || (fw.name != "torch" && fw.name != "tensorflow")) continue;
        std::string fix;
        if (fw.name == "torch") {
            const auto variant = best_torch_variant(s, kb, fw);
            fix = variant.empty() ? fmt::format("{} -m pip install --force-reinstall torch", python_of(fw))
                                  : fmt::format("{} -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/{}",
                                                python_of(fw), variant);
            if (fw.python.starts_with("/usr/lib/python3/dist-packages"))
                fix =
                    "# Debian's python3-torch is a CPU build: use a venv with a CUDA wheel\npython3 -m venv ~/venv-torch && ~/venv-torch/bin/pip install torch" +
                    (variant.empty() ? std::string() : " --index-url https://download.pytorch.org/whl/" + variant);
        } else {
            fix = fmt::format("{} -m pip install 'tensorflow[and-cuda]'", python_of(fw));
        }
        out.push_back(finding(fmt::format("{} {} is a CPU-only build, but this machine has an NVIDIA GPU", fw.name, fw.version),
                              fw.name == "torch" ? "torch.cuda.is_available() is False and .cuda() raises \"Torch not compiled "
                                                   "with CUDA enabled\"."
                                                 : "TensorFlow lists no GPU devices and runs everything on the CPU.",
                              fix, {{fw.python, fw.name + " " + fw.version + ": no CUDA"}}));
    }
    return out;
}

bool cc_less(const std::string& a, const std::string& b) {
    auto va = Version::parse(a), vb = Version::parse(b);
    return va && vb && *va < *vb;
}

std::string arch_fix(const Snapshot& s, const kb::Kb& kb, const snapshot::Framework& fw, const snapshot::Gpu& g) {
    if (fw.name == "torch") {
        const auto variant = best_torch_variant(s, kb, fw, g.compute_capability);
        return variant.empty()
                   ? "# no PyTorch wheel in the knowledge base carries this architecture: build from source with TORCH_CUDA_ARCH_LIST=" +
                         g.compute_capability
                   : fmt::format("{} -m pip install --upgrade torch --index-url https://download.pytorch.org/whl/{}", python_of(fw), variant);
    }
    if (fw.name == "tensorflow") return fmt::format("{} -m pip install --upgrade 'tensorflow[and-cuda]'", python_of(fw));
    return fmt::format("{} -m pip install --upgrade {}   # a release built for this GPU's architecture", python_of(fw), fw.name);
}

/// The facts read from the framework's own CUDA library (its fatbin headers) decide.
std::vector<Finding> arch_from_binary(const Snapshot& s, const kb::Kb& kb, const snapshot::Framework& fw) {
    std::vector<gpucode::Image> images;
    for (const auto& name : fw.binary_archs)
        if (auto image = gpucode::parse_target(name)) images.push_back(*image);
    std::vector<Finding> out;
    for (const auto& g : s.gpus) {
        auto cc = gpucode::parse_compute_capability(g.compute_capability);
        if (!cc) continue;
        if (gpucode::verdict_for({images}, *cc).mode != gpucode::RunMode::cannot_run) continue;
        const std::string list = fmt::format("{}", fmt::join(fw.binary_archs, " "));
        out.push_back(finding(fmt::format("{} {} has no kernels for the {} (compute {})", fw.name, fw.version, g.name, g.compute_capability),
                              fmt::format("Its {} carries GPU code for {} only (read from its fatbin headers): neither SASS for "
                                          "compute {} (nor for a lower {}.x) nor PTX the driver could compile for it, so kernels "
                                          "fail with \"no kernel image is available for execution on the device\".",
                                          host::basename(fw.binary_archs_source), list, g.compute_capability, cc->major),
                              arch_fix(s, kb, fw, g),
                              {{fw.binary_archs_source, "fatbin headers: " + list}, {"/sys/bus/pci/devices/" + g.bus_id, g.name}}));
    }
    return out;
}

/// What the build can hold without its binaries: the KB's list for a torch wheel, TensorFlow's
/// build_info list, else only the CUDA it was built with (recipe::gpu_fit, which plan asks too).
std::optional<recipe::BuildTargets> targets_of(const kb::Kb& kb, const snapshot::Framework& fw) {
    auto cuda = Version::parse(*fw.cuda);
    if (!cuda) return std::nullopt;
    recipe::BuildTargets t;
    if (fw.name == "torch") {
        auto tv = Version::parse(fw.version);
        if (auto wheel = tv ? kb.torch_wheel(*tv, torch_variant(*fw.cuda)) : std::nullopt) t = recipe::torch_targets(*wheel);
    } else if (fw.name == "tensorflow") {
        for (const auto& a : fw.cuda_archs) {
            // "sm_86" / "compute_90" → "8.6" / PTX from 9.0
            const auto us = a.find('_');
            if (us == std::string::npos || a.size() < us + 3) continue;
            const std::string digits = a.substr(us + 1);
            const std::string cc = digits.substr(0, digits.size() - 1) + "." + digits.back();
            if (a.starts_with("sm_")) t.sass.push_back(cc);
            else if (!t.ptx_from || cc_less(cc, *t.ptx_from)) t.ptx_from = cc;
        }
        if (t.sass.empty()) t.ptx_from.reset();  // PTX alone: treated as no list
    } else {
        return std::nullopt;
    }
    t.cuda = *cuda;
    return t;
}

std::vector<Finding> framework_gpu_arch_unsupported(const Snapshot& s, const kb::Kb& kb) {
    std::vector<Finding> out;
    for (const auto& fw : s.frameworks) {
        if (!fw.binary_archs.empty()) {
            auto found = arch_from_binary(s, kb, fw);
            out.insert(out.end(), found.begin(), found.end());
            continue;
        }
        if (!fw.cuda || fw.cuda->empty()) continue;
        const auto targets = targets_of(kb, fw);
        if (!targets) continue;
        for (const auto& g : s.gpus) {
            if (g.compute_capability.empty()) continue;
            const auto fit = recipe::gpu_fit(*targets, g.compute_capability, g.architecture, kb);
            if (fit.fit == recipe::Fit::runs || fit.fit == recipe::Fit::unknown) continue;
            const std::string sm = g.compute_capability.substr(0, g.compute_capability.find('.')) +
                                   g.compute_capability.substr(g.compute_capability.find('.') + 1);
            const std::vector<Evidence> ev = {{fw.python, fw.name + " " + fw.version + " CUDA " + *fw.cuda},
                                              {"/sys/bus/pci/devices/" + g.bus_id, g.name}};
            if (fit.fit == recipe::Fit::needs_ptx) {
                // Not proven: say what is known, as a note.
                out.push_back(finding(fmt::format("{} {} has no SASS for the {} (compute {}): it runs only if the build ships PTX", fw.name,
                                                  fw.version, g.name, g.compute_capability),
                                      fmt::format("{} {} {}. Without PTX, kernels fail with \"no kernel image is available for "
                                                  "execution on the device\"; with it, the first start JIT-compiles them.",
                                                  fw.name, fw.version, fit.reason),
                                      arch_fix(s, kb, fw, g), ev, Severity::info));
                continue;
            }
            const std::string why = targets->sass.empty() ? fmt::format("{} {} {}", fw.name, fw.version, fit.reason)
                                                          : fmt::format("The build carries {}: the GPU's architecture is not among them",
                                                                        recipe::describe_targets(*targets));
            out.push_back(
                finding(fmt::format("{} {} has no kernels for the {} (compute {})", fw.name, fw.version, g.name, g.compute_capability),
                        fmt::format("{}, so kernels fail with \"no kernel image is available for execution on the device\" (PyTorch "
                                    "warns \"sm_{} is not compatible with the current PyTorch installation\").",
                                    why, sm),
                        arch_fix(s, kb, fw, g), ev));
        }
    }
    return out;
}

/// The oldest TensorFlow release with the [and-cuda] extra (2.14): the smallest upgrade that brings
/// its own CUDA and cuDNN wheels.
std::optional<Version> first_tensorflow_with_and_cuda(const kb::Kb& kb) {
    std::optional<Version> first;
    for (const auto& b : kb.tensorflow_table())
        if (b.platform == "Linux" && recipe::tensorflow_has_and_cuda(b.tensorflow) && (!first || b.tensorflow < *first))
            first = b.tensorflow;
    return first;
}

std::vector<Finding> tensorflow_cuda_mismatch(const Snapshot& s, const kb::Kb& kb) {
    std::vector<Finding> out;
    for (const auto& fw : s.frameworks) {
        if (fw.name != "tensorflow" || !fw.cuda || fw.cuda->empty()) continue;
        if (!fw.nvidia_wheels.empty()) continue;  // tensorflow[and-cuda]: it loads its own wheels
        auto want = Version::parse(*fw.cuda);
        if (!want) continue;
        const auto* tk = default_toolkit(s);
        if (!tk) tk = path_toolkit(s);
        std::vector<Evidence> ev = {{fw.python, fmt::format("tensorflow {} built with CUDA {}, cuDNN {}", fw.version, *fw.cuda, fw.cudnn)}};
        std::vector<std::string> problems;
        if (auto have = tk ? Version::parse(tk->version) : std::nullopt; have && have->major() != want->major()) {
            problems.push_back(fmt::format("system CUDA is {}", tk->version));
            ev.push_back({tk->path, "CUDA " + tk->version});
        }
        if (auto want_dnn = major_of(fw.cudnn)) {
            for (const auto& c : s.cudnn) {
                if (!c.loader_visible || c.location == "pip") continue;
                if (auto m = major_of(c.version); m && *m != *want_dnn) {
                    problems.push_back("cuDNN on the loader path is " + c.version);
                    ev.push_back({c.path, "cuDNN " + c.version});
                    break;
                }
            }
        }
        if (problems.empty()) continue;
        std::string list;
        for (const auto& p : problems) list += (list.empty() ? "" : "; ") + p;
        const auto tf = Version::parse(fw.version);
        auto tested = tf ? kb.tensorflow_tested_build(*tf) : std::nullopt;
        const std::string cuda = tested ? tested->cuda.str() : *fw.cuda;
        const std::string cudnn = tested ? tested->cudnn.str() : fw.cudnn;
        std::string fix;
        if (tf && !recipe::tensorflow_has_and_cuda(*tf)) {
            // No [and-cuda] extra for this release: the system CUDA and cuDNN it was tested with (plan
            // prints those steps, the same commands everywhere), or the nearest release with the extra.
            const auto upgrade = first_tensorflow_with_and_cuda(kb);
            const std::string since = upgrade ? " (it starts at " + upgrade->truncated(2).str() + ")" : "";
            fix = fmt::format(
                "# TensorFlow {} has no [and-cuda] extra{}. Either give it the CUDA {} and cuDNN {} it was tested with; the "
                "steps for this machine:\ncudoctor plan --framework tensorflow=={}\n# or upgrade to a TensorFlow that brings its "
                "own CUDA and cuDNN wheels:\n{} -m pip install {}",
                fw.version, since, cuda, cudnn, tf->truncated(2).str(), python_of(fw),
                upgrade ? "'tensorflow[and-cuda]==" + upgrade->truncated(2).str() + ".*'" : "--upgrade 'tensorflow[and-cuda]'");
        } else {
            fix = fmt::format("{} -m pip install 'tensorflow[and-cuda]=={}'   # brings the CUDA {} and cuDNN {} wheels it was tested with",
                              python_of(fw), fw.version, cuda, cudnn);
        }
        out.push_back(finding(fmt::format("TensorFlow {} was built for CUDA {} / cuDNN {}, but {}", fw.version, *fw.cuda, fw.cudnn, list),
                              "TensorFlow without its [and-cuda] wheels dlopens the system's libcudart, libcublas and libcudnn by "
                              "their major version; other majors are not found (\"Could not load dynamic library "
                              "'libcudart.so.N'\") and TensorFlow silently runs on the CPU.",
                              fix, ev));
    }
    return out;
}

/// The installed toolkit with nvcc to build torch's extensions with: torch's CUDA minor, else the
/// newest of its major; nullptr when none is installed.
const snapshot::Toolkit* toolkit_for_cuda(const Snapshot& s, const Version& cuda) {
    const snapshot::Toolkit* best = nullptr;
    for (const auto& tk : s.toolkits) {
        auto v = Version::parse(tk.version);
        if (!v || !tk.has_nvcc || !is_system_toolkit(tk) || v->major() != cuda.major()) continue;
        if (v->truncated(2) == cuda.truncated(2)) return &tk;
        if (!best || *v > *Version::parse(best->version)) best = &tk;
    }
    return best;
}

/// Point CUDA_HOME at an installed toolkit of torch's CUDA major, or install torch's CUDA first:
/// never a folder the machine does not have.
std::string extension_toolkit_fix(const Snapshot& s, const std::string& torch_cuda, const kb::Kb& kb) {
    const auto cuda = Version::parse(torch_cuda);
    if (!cuda) return {};
    std::string fix;
    const auto* tk = toolkit_for_cuda(s, *cuda);
    std::string dir = tk ? tk->path : recipe::toolkit_dir(*cuda);
    if (!tk)
        fix = "# no CUDA " + std::to_string(cuda->major()) + " toolkit with nvcc is installed: install torch's CUDA " + cuda->str() + "\n" +
              recipe::toolkit_fix(s, *cuda, kb) + "\n";
    return fix + fmt::format("# build extensions with it:\nexport CUDA_HOME={}\nexport PATH=$CUDA_HOME/bin:$PATH", dir);
}

std::vector<Finding> extension_build_mismatch(const Snapshot& s, const kb::Kb& kb) {
    const auto* nvcc = path_toolkit(s);
    if (!nvcc) return {};
    auto have = major_of(nvcc->version);
    std::vector<Finding> out;
    for (const auto& fw : s.frameworks) {
        if (fw.name != "torch" || !fw.cuda || fw.cuda->empty()) continue;
        auto want = major_of(*fw.cuda);
        if (!have || !want || *have == *want) continue;
        out.push_back(finding(fmt::format("nvcc on PATH is CUDA {} but torch {} was built with CUDA {}", nvcc->version, fw.version, *fw.cuda),
                              "Building a PyTorch C++/CUDA extension (pip install of a package with CUDA code, "
                              "torch.utils.cpp_extension) stops with \"The detected CUDA version ({}) mismatches the version "
                              "that was used to compile PyTorch ({})\".",
                              extension_toolkit_fix(s, *fw.cuda, kb),
                              {{nvcc->nvcc_path, "CUDA " + nvcc->version}, {fw.python, "torch " + fw.version + " CUDA " + *fw.cuda}}));
    }
    return out;
}

std::vector<Finding> triton_compiler_missing(const Snapshot& s, const kb::Kb&) {
    std::vector<Finding> out;
    for (const auto& fw : s.frameworks) {
        if (fw.name != "triton") continue;
        const snapshot::Python* py = nullptr;
        for (const auto& p : s.pythons)
            if (p.site == fw.python) py = &p;
        std::vector<std::string> missing;
        std::vector<std::string> packages;
        if (s.platform.c_compiler.empty()) {
            missing.emplace_back("no C compiler (cc / gcc) on PATH");
            packages.emplace_back(recipe::distro_of(s).apt() ? "build-essential" : "gcc");
        }
        if (py && !py->has_headers) {
            missing.push_back("no Python.h for Python " + py->version);
            packages.push_back(recipe::distro_of(s).apt() ? "python" + py->version + "-dev" : "python3-devel");
        }
        if (missing.empty()) continue;
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : " and ") + m;
        out.push_back(finding(fmt::format("Triton {} is installed but there is {}", fw.version, list),
                              "Triton compiles a small C launcher for each kernel on first use; torch.compile (and every Triton "
                              "kernel) then fails with \"Failed to find C compiler\" or \"Python.h: No such file or directory\".",
                              recipe::install_packages(recipe::distro_of(s), packages), {{fw.python, "triton " + fw.version}}));
    }
    return out;
}

}  // namespace

std::vector<Rule> framework_rules() {
    return {
        {"framework-cpu-only-build", Layer::framework, Severity::error,
         "an NVIDIA GPU is present but PyTorch / TensorFlow is a CPU-only build",
         "\"Torch not compiled with CUDA enabled\"; the fix installs the CUDA wheel the driver can run.", cpu_only_build},
        {"framework-gpu-arch-unsupported", Layer::framework, Severity::error, "the GPU's architecture is not in the framework build's list",
         "Compares the GPU's compute capability with the GPU code the framework's largest CUDA library carries (read from "
         "its fatbin headers, as `cudoctor arch` does); without that library, with the PyTorch wheel's list "
         "(data/pytorch_cuda.tsv) or TensorFlow's build_info; without a list, with the CUDA it was built with "
         "(data/cuda_arch_support.tsv): an error where nothing in it can run, a note where only PTX it may not ship could "
         "(plan decides the same way): \"no kernel image is available for execution on the device\".",
         framework_gpu_arch_unsupported},
        {"tensorflow-cuda-mismatch", Layer::framework, Severity::error,
         "TensorFlow that loads system CUDA/cuDNN finds other versions than it was built with",
         "TensorFlow without [and-cuda] wheels loads the system's CUDA and cuDNN by major version.", tensorflow_cuda_mismatch},
        {"extension-build-cuda-mismatch", Layer::framework, Severity::warning,
         "the nvcc that would build a PyTorch extension has another CUDA major than torch",
         "\"The detected CUDA version mismatches the version that was used to compile PyTorch\".", extension_build_mismatch},
        {"triton-compiler-missing", Layer::framework, Severity::warning,
         "Triton installed but no C compiler or no Python.h for its interpreter",
         "The first torch.compile / Triton kernel fails; the fix installs build-essential and pythonX.Y-dev.", triton_compiler_missing},
    };
}

}  // namespace cudoctor::rules::detail
