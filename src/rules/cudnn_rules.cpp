// cuDNN rules: built for another CUDA major, headers and libraries of different releases, and
// cuDNN only inside a toolkit that is not the default.
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

bool inside(const std::string& path, const std::string& folder) { return path == folder || path.starts_with(folder + "/"); }

std::vector<Finding> cudnn_cuda_mismatch(const Snapshot& s, const kb::Kb& kb) {
    std::vector<Finding> out;
    for (const auto& c : s.cudnn) {
        auto cv = Version::parse(c.version);
        if (!cv) continue;
        // Who would load this copy, and with which CUDA major.
        std::vector<std::pair<std::string, int>> users;
        if (c.location == "toolkit" || c.location == "conda") {
            for (const auto& tk : s.toolkits)
                if (auto m = major_of(tk.version); m && inside(c.path, tk.path)) users.emplace_back(toolkit_label(tk), *m);
        } else if (c.location == "pip") {
            for (const auto& fw : s.frameworks)
                if (auto m = fw.cuda ? major_of(*fw.cuda) : std::nullopt; m && inside(c.path, fw.python))
                    users.emplace_back(fw.name + " " + fw.version, *m);
        } else if (const auto* tk = default_toolkit(s)) {
            if (auto m = major_of(tk->version)) users.emplace_back(toolkit_label(*tk), *m);
        }
        // What it is built for: its own record (wheel name, package), else every CUDA major the release supports.
        std::vector<int> built;
        if (auto m = major_of(c.cuda_major); m && c.location != "toolkit") built = {*m};
        else built = kb.cuda_majors_for_cudnn(*cv);
        if (built.empty()) continue;
        for (const auto& [who, major] : users) {
            if (std::find(built.begin(), built.end(), major) != built.end()) continue;
            std::string majors;
            for (int b : built) majors += (majors.empty() ? "" : "/") + std::to_string(b);
            std::string fix;
            if (c.location == "pip")
                fix =
                    fmt::format("python3 -m pip install --force-reinstall 'nvidia-cudnn-cu{}'   # the cuDNN wheel of {}'s CUDA", major, who);
            else fix = recipe::cudnn_fix(s, *cv, Version({major}), kb);
            out.push_back(finding(fmt::format("cuDNN {} at {} is built for CUDA {}, but {} is CUDA {}", c.version, c.path, majors, who, major),
                                  "cuDNN links against one CUDA major's runtime and libraries; loaded by another it fails with "
                                  "\"CUDNN_STATUS_NOT_INITIALIZED\", missing-symbol or \"libcublasLt.so.N: cannot open shared "
                                  "object file\" errors.",
                                  fix, {{c.path, "cuDNN " + c.version + " for CUDA " + majors}, {who, fmt::format("CUDA {}", major)}}));
        }
    }
    return out;
}

std::vector<Finding> header_library_mismatch(const Snapshot& s, const kb::Kb&) {
    std::vector<Finding> out;
    for (const auto& c : s.cudnn) {
        auto header = Version::parse(c.header_version);
        if (!header) continue;
        for (const auto& lib : c.library_versions) {
            auto lv = Version::parse(lib);
            if (!lv || lv->size() < 3 || lv->truncated(3) == header->truncated(3)) continue;
            out.push_back(finding(fmt::format("cuDNN headers say {} but the library at {} is {}", c.header_version, c.path, lib),
                                  "A half-finished upgrade: code compiled against these headers expects another library "
                                  "(CUDNN_STATUS_VERSION_MISMATCH, or \"cuDNN version mismatch\" from frameworks).",
                                  fmt::format("# replace both with one release: remove {}/libcudnn*.so.{}* or install the matching headers",
                                              c.path, lib),
                                  {{c.path + "/libcudnn.so." + lib, lib}, {"cudnn_version.h", c.header_version}}));
            break;
        }
    }
    return out;
}

std::vector<Finding> missing_in_default_toolkit(const Snapshot& s, const kb::Kb&) {
    const auto* def = default_toolkit(s);
    const auto systems = std::count_if(s.toolkits.begin(), s.toolkits.end(), [](const auto& tk) { return is_system_toolkit(tk); });
    if (!def || systems < 2) return {};
    const snapshot::Cudnn* elsewhere = nullptr;
    for (const auto& c : s.cudnn) {
        if (c.location == "system") return {};  // the loader finds a system copy whatever the default
        if (c.location != "toolkit") continue;
        if (inside(c.path, def->path)) return {};
        elsewhere = &c;
    }
    if (!elsewhere) return {};
    return {finding(fmt::format("cuDNN is only in {}, not in the default {}", elsewhere->path, toolkit_label(*def)),
                    "cuDNN was copied into one toolkit's folder; /usr/local/cuda points to another, so builds and programs "
                    "using the default toolkit do not find it (\"libcudnn.so.N: cannot open shared object file\").",
                    fmt::format("# copy it into the default toolkit (or install the system package libcudnn9-cuda-N):\n"
                                "sudo cp -P {0}/../include/cudnn*.h {1}/include/\nsudo cp -P {0}/libcudnn* {1}/lib64/\nsudo ldconfig",
                                elsewhere->path, def->path),
                    {{elsewhere->path, "cuDNN " + elsewhere->version}, {"/usr/local/cuda", "-> " + def->path}})};
}

}  // namespace

std::vector<Rule> cudnn_rules() {
    return {
        {"cudnn-cuda-mismatch", Layer::cudnn, Severity::error,
         "a cuDNN built for another CUDA major than the toolkit or framework that loads it",
         "Compares each cuDNN copy's CUDA major (its wheel or package name, else the majors its release supports, "
         "data/cudnn_cuda.tsv) with the toolkit it sits in or the framework that loads it.",
         cudnn_cuda_mismatch},
        {"cudnn-header-library-mismatch", Layer::cudnn, Severity::error, "cuDNN headers and libraries of different versions",
         "cudnn_version.h and the libcudnn.so.X.Y.Z next to it disagree: a half-finished upgrade.", header_library_mismatch},
        {"cudnn-missing-in-default-toolkit", Layer::cudnn, Severity::warning,
         "several toolkits, cuDNN only inside one that is not the default",
         "Switching /usr/local/cuda loses cuDNN; the fix copies it or installs the system package.", missing_in_default_toolkit},
    };
}

}  // namespace cudoctor::rules::detail
