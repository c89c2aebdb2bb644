// cuDNN rules: built for another CUDA major, headers and libraries of different releases, cuDNN
// only inside a toolkit that is not the default, and library links copied as files.
#include <algorithm>

#include <fmt/format.h>

#include "recipe/build_targets.hpp"
#include "recipe/install.hpp"
#include "report/style.hpp"
#include "rules/rule_util.hpp"

namespace cudoctor::rules::detail {
namespace {

using snapshot::Evidence;
using snapshot::Finding;
using snapshot::Layer;
using snapshot::Severity;
using snapshot::Snapshot;

bool inside(const std::string& path, const std::string& folder) { return path == folder || path.starts_with(folder + "/"); }

/// cuDNN's release (9.1.0) of a version as probed (a wheel's 9.1.0.70): what NVIDIA's tables
/// and packages speak of.
Version release_of(const Version& cudnn) { return cudnn.truncated(3); }

bool declares_cudnn_wheel(const snapshot::Framework& fw) {
    return std::any_of(fw.nvidia_wheels.begin(), fw.nvidia_wheels.end(),
                       [](const std::string& w) { return w.starts_with("nvidia-cudnn-cu"); });
}

/// The frameworks that load the pip cuDNN wheel `c`: those of its site that require a cuDNN wheel
/// (it is theirs); when none says so, those that load NVIDIA's wheels from their site at all.
/// TensorFlow before 2.14 never does: it searches the system's libraries for its cuDNN
/// (tensorflow-cuda-mismatch judges that), so another framework's wheel is no concern of it.
std::vector<const snapshot::Framework*> pip_cudnn_users(const Snapshot& s, const snapshot::Cudnn& c) {
    std::vector<const snapshot::Framework*> site, owners;
    for (const auto& fw : s.frameworks) {
        if (!inside(c.path, fw.python)) continue;
        site.push_back(&fw);
        if (declares_cudnn_wheel(fw)) owners.push_back(&fw);
    }
    if (!owners.empty()) return owners;
    std::erase_if(site, [](const snapshot::Framework* fw) {
        auto v = Version::parse(fw->version);
        return fw->name == "tensorflow" && (!v || !recipe::tensorflow_has_and_cuda(*v));  // before [and-cuda]: the system cuDNN
    });
    return site;
}

std::vector<Finding> cudnn_cuda_mismatch(const Snapshot& s, const kb::Kb& kb) {
    std::vector<Finding> out;
    for (const auto& c : s.cudnn) {
        auto cv = Version::parse(c.version);
        if (!cv) continue;
        // Who would load this copy, and with which CUDA major.
        std::vector<std::pair<std::string, int>> users;
        if (c.location == "toolkit" || c.location == "conda") {
            // The innermost toolkit holding it: Ubuntu's nvidia-cuda-toolkit lives in /usr, which
            // also holds /usr/local/cuda-12.4 and the cuDNN copied there.
            const snapshot::Toolkit* owner = nullptr;
            for (const auto& tk : s.toolkits)
                if (inside(c.path, tk.path) && (!owner || tk.path.size() > owner->path.size())) owner = &tk;
            if (auto m = owner ? major_of(owner->version) : std::nullopt) users.emplace_back(toolkit_label(*owner), *m);
        } else if (c.location == "pip") {
            for (const auto* fw : pip_cudnn_users(s, c))
                if (auto m = fw->cuda ? major_of(*fw->cuda) : std::nullopt) users.emplace_back(fw->name + " " + fw->version, *m);
        } else if (const auto* tk = default_toolkit(s)) {
            if (auto m = major_of(tk->version)) users.emplace_back(toolkit_label(*tk), *m);
        }
        // What it is built for: its own record (the CUDA libraries it links or opens, its wheel or
        // package name), else every CUDA major its release supports. A bare major (libcudnn.so.9
        // alone) names no release: the KB cannot say which CUDA it is for.
        std::vector<int> built;
        if (auto m = major_of(c.cuda_major)) built = {*m};
        else if (cv->size() >= 2) built = kb.cuda_majors_for_cudnn(release_of(*cv));
        if (built.empty()) continue;
        for (const auto& [who, major] : users) {
            if (std::find(built.begin(), built.end(), major) != built.end()) continue;
            std::string majors;
            for (int b : built) majors += (majors.empty() ? "" : "/") + std::to_string(b);
            std::string fix;
            if (c.location == "pip")
                fix =
                    fmt::format("python3 -m pip install --force-reinstall 'nvidia-cudnn-cu{}'   # the cuDNN wheel of {}'s CUDA", major, who);
            else fix = recipe::cudnn_fix(s, release_of(*cv), Version({major}), kb);
            // A copy inside the toolkit folder shadows any other cuDNN for whatever uses that
            // toolkit's lib folder: it goes, or the new one is never loaded.
            if (c.location == "toolkit")
                fix = fmt::format(
                    "# remove the copy built for CUDA {0} from the toolkit first (it shadows any other cuDNN):\n"
                    "sudo rm -f {1}/libcudnn* {1}/../include/cudnn*.h\n{2}",
                    majors, c.path, fix);
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

/// cuDNN for the default toolkit `def`: a copy of `c` only where its libraries are known to be
/// built for def's CUDA major (a cuDNN of another major fails there); else cuDNN for that major
/// installed by recipe::cudnn_install — c's release where the KB has a build of it for def's
/// CUDA, else the newest release the KB has for it.
std::string cudnn_for_default_fix(const Snapshot& s, const snapshot::Cudnn& c, const snapshot::Toolkit& def, const kb::Kb& kb) {
    const auto def_version = Version::parse(def.version);
    const auto def_major = major_of(def.version);
    const auto built = major_of(c.cuda_major);
    if (built && def_major && *built == *def_major)
        return fmt::format(
            "# copy it into the default toolkit (its libraries are built for CUDA {2}):\n"
            "sudo cp -P {0}/../include/cudnn*.h {1}/include/\nsudo cp -P {0}/libcudnn* {1}/lib64/\nsudo ldconfig",
            c.path, def.path, *built);
    if (!def_version) return "# install cuDNN built for the default toolkit's CUDA (not a copy of this one)";
    std::optional<Version> release;
    if (auto v = Version::parse(c.version); v && v->size() >= 3 && kb.cudnn_supports_cuda(release_of(*v), *def_version).value_or(false))
        release = release_of(*v);
    if (!release) release = kb.newest_cudnn_for(*def_version);
    if (!release)
        return fmt::format("# install cuDNN built for CUDA {} (a copy of this one is built for another CUDA)", def_version->major());
    const std::string why = built ? fmt::format("it is built for CUDA {}", *built) : std::string("which CUDA it is built for is unknown");
    return fmt::format("# do not copy {} into {} ({}); install cuDNN {} built for CUDA {}:\n{}", c.path, def.path, why, release->str(),
                       def_version->major(), recipe::cudnn_fix(s, *release, Version({def_version->major()}), kb));
}

std::vector<Finding> missing_in_default_toolkit(const Snapshot& s, const kb::Kb& kb) {
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
                    cudnn_for_default_fix(s, *elsewhere, *def, kb),
                    {{elsewhere->path,
                      "cuDNN " + elsewhere->version + (elsewhere->cuda_major.empty() ? "" : " for CUDA " + elsewhere->cuda_major)},
                     {"/usr/local/cuda", "-> " + def->path}})};
}

/// The `ln` lines that turn a flattened chain back into links, each name pointing to the next more
/// precise one (libcudnn.so → libcudnn.so.9 → libcudnn.so.9.1.0), as the archive ships them.
std::string relink_lines(const std::string& dir, const snapshot::CudnnFlattenedChain& chain) {
    std::string out;
    for (std::size_t i = 1; i < chain.names.size(); ++i)
        if (std::find(chain.copies.begin(), chain.copies.end(), chain.names[i]) != chain.copies.end())
            out += fmt::format("sudo ln -sf {} {}/{}\n", chain.names[i - 1], dir, chain.names[i]);
    return out;
}

std::vector<Finding> links_flattened(const Snapshot& s, const kb::Kb&) {
    std::vector<Finding> out;
    for (const auto& c : s.cudnn) {
        if (c.flattened.empty()) continue;
        std::uint64_t wasted = 0;
        std::size_t copies = 0;
        std::string fix;
        std::vector<Evidence> evidence;
        for (const auto& chain : c.flattened) {
            wasted += chain.size * chain.copies.size();
            copies += chain.copies.size();
            fix += relink_lines(c.path, chain);
            evidence.push_back({c.path + "/" + chain.real_file, fmt::format("{} bytes; regular files of the same size and first bytes: {}",
                                                                            chain.size, report::join(chain.copies, ", "))});
        }
        fix += "sudo ldconfig";
        out.push_back(finding(fmt::format("cuDNN at {}: {} copied as {} instead of {} ({} wasted)", c.path,
                                          copies == 1 ? std::string("1 library name") : fmt::format("{} library names", copies),
                                          copies == 1 ? "a file" : "files", copies == 1 ? "a link" : "links",
                                          report::bytes_text(static_cast<double>(wasted), report::ByteStyle::one_decimal)),
                              "cuDNN's archive ships each library once with its short names as symbolic links "
                              "(libcudnn.so → libcudnn.so.9 → libcudnn.so.9.1.0); a copy without `cp -P` turned every link into a "
                              "full copy: the space is wasted, `ldconfig` warns \"is not a symbolic link\", and a later upgrade "
                              "that replaces only the real file leaves the old copies to be loaded by their short names.",
                              fix, std::move(evidence)));
    }
    return out;
}

}  // namespace

std::vector<Rule> cudnn_rules() {
    return {
        {"cudnn-cuda-mismatch", Layer::cudnn, Severity::error,
         "a cuDNN built for another CUDA major than the toolkit or framework that loads it",
         "Compares each cuDNN copy's CUDA major (the cuBLAS / NVRTC its libraries link or open, its wheel or package name, "
         "else the majors its release supports, data/cudnn_cuda.tsv) with the toolkit it sits in or the framework that "
         "loads it (a pip cuDNN wheel is loaded by the frameworks that require it, never by TensorFlow before 2.14).",
         cudnn_cuda_mismatch},
        {"cudnn-header-library-mismatch", Layer::cudnn, Severity::error, "cuDNN headers and libraries of different versions",
         "cudnn_version.h and the libcudnn.so.X.Y.Z next to it disagree: a half-finished upgrade.", header_library_mismatch},
        {"cudnn-missing-in-default-toolkit", Layer::cudnn, Severity::warning,
         "several toolkits, cuDNN only inside one that is not the default",
         "Switching /usr/local/cuda loses cuDNN; the fix copies it only when its libraries are built for the default "
         "toolkit's CUDA major, else installs cuDNN built for that major.",
         missing_in_default_toolkit},
        {"cudnn-links-flattened", Layer::cudnn, Severity::warning, "cuDNN's library links were copied as full files",
         "Reads each cuDNN folder's name chains (libcudnn*.so, .so.N, .so.N.x.y): names that are regular files of the real "
         "file's size and first bytes instead of links. The fix re-creates the links and refreshes the loader cache.",
         links_flattened},
    };
}

}  // namespace cudoctor::rules::detail
