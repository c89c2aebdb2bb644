// Toolkit rules: a GPU the toolkit cannot target, a host gcc it rejects, nvcc missing from or
// shadowed on PATH (also by the distribution's old nvidia-cuda-toolkit), CUDA_HOME / CUDA_PATH and
// the /usr/local/cuda link.
#include <algorithm>

#include <fmt/format.h>

#include "recipe/install.hpp"
#include "rules/rule_util.hpp"

namespace cudoctor::rules::detail {
namespace {

using snapshot::Evidence;
using snapshot::Finding;
using snapshot::Layer;
using snapshot::Severity;
using snapshot::Snapshot;

bool is_distro_toolkit(const snapshot::Toolkit& tk);
std::vector<Finding> distro_toolkit_old(const Snapshot& s, const kb::Kb& kb);

std::vector<Finding> gpu_arch_unsupported_by_toolkit(const Snapshot& s, const kb::Kb& kb) {
    std::vector<Finding> out;
    // The distribution's toolkit that wins on PATH is reported by distro-cuda-toolkit-old, which
    // names this GPU among its reasons: its finding here follows from that one (and only its: a
    // kCauses row would also claim the findings of other toolkits).
    const bool distro_reported = !distro_toolkit_old(s, kb).empty();
    for (const auto& g : s.gpus) {
        if (g.compute_capability.empty()) continue;
        auto range = kb.toolkits_supporting(g.compute_capability);
        if (!range) continue;
        for (const auto& tk : s.toolkits) {
            auto tv = Version::parse(tk.version);
            if (!is_system_toolkit(tk) || !tv) continue;
            const Version mm = tv->truncated(2);
            std::vector<Evidence> ev = {{"/sys/bus/pci/devices/" + g.bus_id, g.name + " compute " + g.compute_capability},
                                        {tk.path, "CUDA " + tk.version},
                                        {"kb:cuda_arch_support.tsv", "sm_" + g.compute_capability + ": CUDA " + range->first.str() + "–" +
                                                                         (range->last ? range->last->str() : "today")}};
            if (mm < range->first) {
                out.push_back(finding(fmt::format("{} cannot build for the {} (compute {}): that needs CUDA ≥ {}", toolkit_label(tk),
                                                  g.name, g.compute_capability, range->first.str()),
                                      "nvcc of this release does not know the GPU's architecture: \"nvcc fatal : Unsupported "
                                      "gpu architecture\", and code it builds has no kernel for the GPU (\"no kernel image is "
                                      "available for execution on the device\").",
                                      recipe::toolkit_fix(s, range->first, kb), ev));
                if (distro_reported && tk.first_on_path && is_distro_toolkit(tk)) out.back().consequence_of = "distro-cuda-toolkit-old";
            } else if (range->last && mm > *range->last) {
                out.push_back(finding(fmt::format("{} no longer supports the {} (compute {}): the last toolkit for it is CUDA {}",
                                                  toolkit_label(tk), g.name, g.compute_capability, range->last->str()),
                                      "The architecture was removed from this toolkit: nvcc rejects it and libraries built with "
                                      "it carry no code for this GPU.",
                                      recipe::toolkit_fix(s, *range->last, kb), ev));
            }
        }
    }
    return out;
}

std::vector<Finding> gcc_too_new(const Snapshot& s, const kb::Kb&) {
    std::vector<Finding> out;
    const auto& gcc = s.platform.gcc_default;
    if (!gcc) return out;
    for (const auto& tk : s.toolkits) {
        if (!is_system_toolkit(tk) || !tk.has_nvcc || !tk.max_gcc || *gcc <= *tk.max_gcc) continue;
        out.push_back(finding(fmt::format("gcc {} is newer than {} accepts (gcc ≤ {})", *gcc, toolkit_label(tk), *tk.max_gcc),
                              fmt::format("nvcc checks the host compiler: \"#error -- unsupported GNU version! gcc versions later "
                                          "than {} are not supported!\". Point nvcc at an older gcc (the "
                                          "-allow-unsupported-compiler flag skips the check at your own risk).",
                                          *tk.max_gcc),
                              recipe::use_host_gcc(recipe::distro_of(s), s.platform.gcc_installed, *tk.max_gcc),
                              {{"/usr/bin/gcc", fmt::format("gcc {}", *gcc)},
                               {tk.path + "/" + tk.max_gcc_source, fmt::format("gcc ≤ {}", *tk.max_gcc)}}));
    }
    return out;
}

const snapshot::Toolkit* preferred_toolkit(const Snapshot& s) {
    if (const auto* d = default_toolkit(s); d && is_system_toolkit(*d)) return d;
    const snapshot::Toolkit* best = nullptr;
    for (const auto& tk : s.toolkits) {
        auto v = Version::parse(tk.version);
        if (!is_system_toolkit(tk) || !tk.has_nvcc || !v) continue;
        if (!best || *v > *Version::parse(best->version)) best = &tk;
    }
    return best;
}

std::vector<Finding> toolkit_not_on_path(const Snapshot& s, const kb::Kb&) {
    if (!s.environment.nvcc_on_path.empty()) return {};
    const auto* tk = preferred_toolkit(s);
    // A runtime-only default (cuda-libraries, no nvcc) must not hide a full toolkit beside it:
    // its bin/ is what cures "nvcc: command not found".
    if (tk && !tk->has_nvcc) {
        tk = nullptr;
        for (const auto& other : s.toolkits) {
            const auto v = Version::parse(other.version);
            if (is_system_toolkit(other) && other.has_nvcc && v && (!tk || *v > *Version::parse(tk->version))) tk = &other;
        }
    }
    if (!tk || !tk->has_nvcc) return {};
    const std::string dir = tk->is_default ? "/usr/local/cuda" : tk->path;
    return {finding(fmt::format("{} is installed but no nvcc is on PATH", toolkit_label(*tk)),
                    "The toolkit's bin/ folder is not on PATH, so `nvcc` is \"command not found\" and build systems "
                    "looking for it fail; the runfile and the deb packages do not change PATH themselves.",
                    recipe::path_exports(dir), {{"env PATH", "no folder with nvcc"}, {tk->nvcc_path, "exists"}})};
}

/// The toolkit the user said should be used: CUDA_HOME's, else /usr/local/cuda's.
const snapshot::Toolkit* intended_toolkit(const Snapshot& s, std::string& why) {
    for (const auto& tk : s.toolkits) {
        if (std::find(tk.found_by.begin(), tk.found_by.end(), "CUDA_HOME") != tk.found_by.end()) {
            why = "CUDA_HOME";
            return &tk;
        }
    }
    why = "/usr/local/cuda";
    return default_toolkit(s);
}

std::vector<Finding> nvcc_shadowed(const Snapshot& s, const kb::Kb&) {
    const auto* winner = path_toolkit(s);
    std::string named_by;
    const auto* intended = intended_toolkit(s, named_by);
    if (!winner || !intended || winner == intended || !is_system_toolkit(*intended)) return {};
    return {finding(fmt::format("nvcc on PATH is {}, but {} names {}", toolkit_label(*winner), named_by, toolkit_label(*intended)),
                    "Builds that call nvcc from PATH compile with one toolkit while CMake, PyTorch extensions and scripts "
                    "that use " +
                        named_by +
                        " link against another: mixed headers, libraries and \"CUDA version mismatch\" "
                        "errors follow.",
                    fmt::format("export PATH={}/bin:$PATH   # or take {} out of PATH",
                                intended->is_default ? "/usr/local/cuda" : intended->path, winner->path + "/bin"),
                    {{"env PATH", s.environment.nvcc_on_path.front() + " wins"}, {named_by, intended->path}})};
}

std::vector<Finding> cuda_home_invalid(const Snapshot& s, const kb::Kb&) {
    std::vector<Finding> out;
    const auto* winner = path_toolkit(s);
    for (const auto& [var, value] : {std::pair{"CUDA_HOME", s.environment.cuda_home}, std::pair{"CUDA_PATH", s.environment.cuda_path}}) {
        if (!value || value->empty()) continue;
        const snapshot::Toolkit* named = nullptr;
        for (const auto& tk : s.toolkits)
            if (std::find(tk.found_by.begin(), tk.found_by.end(), var) != tk.found_by.end()) named = &tk;
        const auto* target = winner ? winner : preferred_toolkit(s);
        const std::string fix_line =
            target ? fmt::format("export {}={}", var, target->is_default ? "/usr/local/cuda" : target->path) : fmt::format("unset {}", var);
        if (!named) {
            out.push_back(finding(fmt::format("{}={} is not a CUDA toolkit folder", var, *value),
                                  fmt::format("{} points to a folder that does not exist (or holds no toolkit). Build "
                                              "systems that trust it (CMake, PyTorch extensions, TensorFlow configure) fail "
                                              "to find nvcc, headers and libraries.",
                                              var),
                                  fix_line, {{std::string("env ") + var, *value}}));
        } else if (winner && named != winner) {
            out.push_back(finding(fmt::format("{} names {} but nvcc on PATH is {}", var, toolkit_label(*named), toolkit_label(*winner)),
                                  "Tools that read " + std::string(var) +
                                      " build against one toolkit and the nvcc on PATH "
                                      "compiles with another.",
                                  fmt::format("export PATH={}/bin:$PATH   # keep {} and put its nvcc first\n"
                                              "# or follow PATH instead: {}",
                                              *value, var, fix_line),
                                  {{std::string("env ") + var, *value}, {"env PATH", s.environment.nvcc_on_path.front()}}, Severity::warning));
        }
    }
    return out;
}

std::vector<Finding> cuda_symlink_dangling(const Snapshot& s, const kb::Kb&) {
    if (!s.environment.cuda_symlink_dangling) return {};
    const snapshot::Toolkit* newest = nullptr;
    for (const auto& tk : s.toolkits) {
        auto v = Version::parse(tk.version);
        if (is_system_toolkit(tk) && v && tk.path.starts_with("/usr/local/cuda-") && (!newest || *v > *Version::parse(newest->version)))
            newest = &tk;
    }
    return {finding(fmt::format("/usr/local/cuda points to {}, which does not exist", s.environment.cuda_symlink),
                    "The toolkit it named was removed or moved; everything configured with /usr/local/cuda (PATH, "
                    "ld.so.conf, CMake) finds nothing.",
                    newest ? fmt::format("sudo ln -sfn {} /usr/local/cuda", newest->path) : std::string("sudo rm /usr/local/cuda"),
                    {{"/usr/local/cuda", "-> " + s.environment.cuda_symlink}})};
}

/// Ubuntu's and Debian's own `nvidia-cuda-toolkit` package: the toolkit probe finds it by that
/// package, at nvcc's real home /usr/lib/nvidia-cuda-toolkit (or /usr), never under /usr/local.
/// Its release is the distribution's: 11.5.1 on Ubuntu 22.04 (packages.ubuntu.com/source/jammy/all/
/// nvidia-cuda-toolkit: 11.5.1-1ubuntu1), 12.0 on 24.04, 11.8 on Debian 12 (packages.debian.org
/// src:nvidia-cuda-toolkit: bookworm 11.8.0-5~deb12u1).
bool is_distro_toolkit(const snapshot::Toolkit& tk) {
    return tk.install_method == snapshot::InstallMethod::deb && (tk.path == "/usr/lib/nvidia-cuda-toolkit" || tk.path == "/usr") &&
           std::find(tk.found_by.begin(), tk.found_by.end(), "dpkg") != tk.found_by.end();
}

/// The distribution's nvcc wins on PATH (or is the only one) and that matters here: an NVIDIA
/// toolkit that is newer loses to it, the GPU needs a newer CUDA than it has, or torch was built
/// with a newer CUDA major (its extensions will not build). An old release that serves this machine
/// is no problem and is not reported.
std::vector<Finding> distro_toolkit_old(const Snapshot& s, const kb::Kb& kb) {
    const auto* d = path_toolkit(s);
    if (!d || !is_distro_toolkit(*d)) return {};
    const auto dv = Version::parse(d->version);
    if (!dv) return {};
    const Version mm = dv->truncated(2);
    std::vector<std::string> reasons;
    std::vector<Evidence> ev = {{"dpkg nvidia-cuda-toolkit", "CUDA " + d->version},
                                {"env PATH", s.environment.nvcc_on_path.front() + " wins"}};
    // The newest NVIDIA toolkit with nvcc that loses on PATH, if it is newer.
    const snapshot::Toolkit* nvidia = nullptr;
    for (const auto& tk : s.toolkits) {
        const auto v = Version::parse(tk.version);
        if (!is_system_toolkit(tk) || is_distro_toolkit(tk) || !tk.has_nvcc || !v || v->truncated(2) <= mm) continue;
        if (!nvidia || tk.is_default || (!nvidia->is_default && *v > *Version::parse(nvidia->version))) nvidia = &tk;
    }
    if (nvidia) {
        reasons.push_back(fmt::format("{} is installed but loses on PATH", toolkit_label(*nvidia)));
        ev.push_back({nvidia->nvcc_path, "CUDA " + nvidia->version});
    }
    std::optional<Version> needed;  // the oldest release that serves this machine
    auto need = [&](const Version& v) {
        if (!needed || v > *needed) needed = v;
    };
    for (const auto& g : s.gpus) {
        if (g.compute_capability.empty()) continue;
        const auto range = kb.toolkits_supporting(g.compute_capability);
        if (!range || mm >= range->first) continue;
        reasons.push_back(fmt::format("the {} (compute {}) needs CUDA ≥ {}", g.name, g.compute_capability, range->first.str()));
        ev.push_back({"kb:cuda_arch_support.tsv", "sm_" + g.compute_capability + " from CUDA " + range->first.str()});
        need(range->first);
    }
    for (const auto& fw : s.frameworks) {
        if (fw.name != "torch" || !fw.cuda) continue;
        const auto want = Version::parse(*fw.cuda);
        if (!want || want->major() <= dv->major()) continue;
        reasons.push_back(
            fmt::format("torch {} was built with CUDA {}: its extensions do not build with nvcc {}", fw.version, *fw.cuda, mm.str()));
        ev.push_back({fw.python, "torch " + fw.version + " CUDA " + *fw.cuda});
        need(want->truncated(2));
    }
    if (reasons.empty()) return {};
    std::string why_here;
    for (const auto& r : reasons) why_here += (why_here.empty() ? "" : "; ") + r;
    std::string fix;
    if (nvidia) {
        fix = recipe::path_exports(nvidia->is_default ? "/usr/local/cuda" : nvidia->path) + "\n";
    } else {
        fix = recipe::toolkit_fix(s, needed ? *needed : mm, kb) + "\n";
    }
    fix += "# or remove the distribution's old one: sudo apt-get remove nvidia-cuda-toolkit";
    return {
        finding(fmt::format("nvcc on PATH is the distribution's nvidia-cuda-toolkit, CUDA {} ({})", d->version, d->nvcc_path),
                fmt::format("`apt install nvidia-cuda-toolkit` installs the distribution's own, old CUDA and its /usr/bin/nvcc, "
                            "which wins wherever NVIDIA's bin/ folder is not put before /usr/bin on PATH. On this machine that matters: {}.",
                            why_here),
                fix, std::move(ev))};
}

}  // namespace

std::vector<Rule> toolkit_rules() {
    return {
        {"gpu-arch-unsupported-by-toolkit", Layer::toolkit, Severity::error,
         "the GPU is newer than a toolkit knows, or older than it supports",
         "Compares each GPU's compute capability with the toolkits that can target it (data/cuda_arch_support.tsv).",
         gpu_arch_unsupported_by_toolkit},
        {"gcc-too-new-for-toolkit", Layer::toolkit, Severity::error, "the default gcc is newer than a toolkit accepts",
         "Compares /usr/bin/gcc's major with each toolkit's limit, read from its own include/crt/host_config.h "
         "(data/cuda_gcc.tsv otherwise): \"unsupported GNU version\". The fix installs gcc-N and points nvcc and CMake at it.",
         gcc_too_new},
        {"toolkit-not-on-path", Layer::toolkit, Severity::warning, "a toolkit is installed but no nvcc is on PATH",
         "\"nvcc: command not found\"; the fix is the export lines for the default toolkit.", toolkit_not_on_path},
        {"nvcc-shadowed", Layer::toolkit, Severity::warning,
         "the nvcc that wins on PATH is not the toolkit CUDA_HOME or /usr/local/cuda names",
         "Compares the toolkit of the first nvcc on PATH with the one CUDA_HOME (else /usr/local/cuda) names.", nvcc_shadowed},
        {"cuda-home-invalid", Layer::toolkit, Severity::error,
         "CUDA_HOME / CUDA_PATH point to a missing folder or another toolkit than nvcc's",
         "A missing folder is an error; another toolkit than the nvcc on PATH a warning.", cuda_home_invalid},
        {"cuda-symlink-dangling", Layer::toolkit, Severity::error, "/usr/local/cuda points to a folder that does not exist",
         "The fix re-points it at the newest installed toolkit.", cuda_symlink_dangling},
        {"distro-cuda-toolkit-old", Layer::toolkit, Severity::warning,
         "the distribution's old nvidia-cuda-toolkit nvcc wins on PATH where a newer CUDA is needed",
         "Ubuntu's and Debian's own nvidia-cuda-toolkit package (11.5 on Ubuntu 22.04, 12.0 on 24.04, 11.8 on Debian 12) "
         "puts its nvcc in /usr/bin. Reported only where it wins on PATH and an installed NVIDIA toolkit loses to it, "
         "the GPU needs a newer CUDA (data/cuda_arch_support.tsv), or torch was built with a newer CUDA major; "
         "the shadowed-nvcc, GPU-architecture and extension-build findings it explains follow from it.",
         distro_toolkit_old},
    };
}

}  // namespace cudoctor::rules::detail
