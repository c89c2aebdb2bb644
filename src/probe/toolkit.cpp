// Toolkit probe: every CUDA toolkit installed, whatever put it there — /usr/local/cuda-*,
// /usr/local/cuda, /opt/cuda, CUDA_HOME / CUDA_PATH, each nvcc on PATH, dpkg packages, pip
// wheels (nvidia/cu13, nvidia/cuda_runtime) and conda environments — with its version, install
// method, nvcc, host gcc limit and place on PATH.
#include <algorithm>
#include <array>

#include <re2/re2.h>

#include "common/text.hpp"
#include "common/version.hpp"
#include "formats/c_header.hpp"
#include "formats/conda_meta.hpp"
#include "formats/cuda_version_files.hpp"
#include "kb/toolkit_release.hpp"
#include "probe/context.hpp"
#include "probe/nvcc.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kToolkitProbe = "toolkit";

struct Candidate {
    std::string path;  // canonical
    std::vector<std::string> found_by;
    snapshot::InstallMethod method_hint = snapshot::InstallMethod::unknown;
    std::string version_hint, version_hint_source;
    std::string release_hint, release_hint_source;       // a cuda-toolkit-X-Y package, conda's cudatoolkit
    std::vector<snapshot::ToolkitComponent> components;  // what packages and wheels say of nvcc / cudart
    std::string nvcc_hint;                               // for wheel layouts, where nvcc lives apart from the runtime
};

/// Records a component version once (the first source wins).
void add_component(std::vector<snapshot::ToolkitComponent>& list, std::string_view name, std::string_view version) {
    if (version.empty() || !Version::parse(version)) return;
    for (const auto& c : list)
        if (c.name == name) return;
    list.push_back({std::string(name), std::string(version)});
}

class Candidates {
  public:
    explicit Candidates(Context& ctx) : m_ctx(ctx) {}
    Candidate* add(std::string_view path, std::string_view found_by) {
        auto real = m_ctx.canonical(kToolkitProbe, path);
        if (!real || !m_ctx.host.is_dir(*real)) return nullptr;
        for (auto& c : m_list) {
            if (c.path == *real) {
                if (std::find(c.found_by.begin(), c.found_by.end(), found_by) == c.found_by.end()) c.found_by.emplace_back(found_by);
                return &c;
            }
        }
        m_list.push_back({*real, {std::string(found_by)}, {}, {}, {}, {}, {}, {}, {}});
        return &m_list.back();
    }
    std::vector<Candidate>& list() { return m_list; }

  private:
    Context& m_ctx;
    std::vector<Candidate> m_list;
};

/// "nvidia_cuda_nvcc_cu12-12.1.105.dist-info" → "12.1.105" when the distribution is `dist`.
std::string dist_info_version(std::string_view name, std::string_view dist) {
    if (!name.ends_with(".dist-info")) return {};
    name.remove_suffix(10);
    const auto dash = name.find('-');
    if (dash == std::string_view::npos) return {};
    auto dist_name = name.substr(0, dash);
    if (dist_name != dist && !(dist_name.starts_with(dist) && dist_name.substr(dist.size()).starts_with("_cu"))) return {};
    return std::string(name.substr(dash + 1));
}

std::string version_from_dist_infos(Context& ctx, const std::vector<std::string>& dirs, std::string& source) {
    for (std::string_view dist : {"nvidia_cuda_nvcc", "nvidia_cuda_runtime"}) {
        for (const auto& dir : dirs) {
            auto names = ctx.host.list_dir(dir);
            if (!names) continue;
            for (const auto& n : *names) {
                if (auto v = dist_info_version(n, dist); !v.empty() && Version::parse(v)) {
                    source = "dist-info";
                    return v;
                }
            }
        }
    }
    return {};
}

/// The nvcc and runtime wheels' versions in `dirs`, as version.json names those components.
std::vector<snapshot::ToolkitComponent> components_from_dist_infos(Context& ctx, const std::vector<std::string>& dirs) {
    std::vector<snapshot::ToolkitComponent> out;
    for (const auto& [dist, component] : {std::pair<std::string_view, std::string_view>{"nvidia_cuda_nvcc", "cuda_nvcc"},
                                          std::pair<std::string_view, std::string_view>{"nvidia_cuda_runtime", "cuda_cudart"}}) {
        for (const auto& dir : dirs) {
            auto names = ctx.host.list_dir(dir);
            if (!names) continue;
            for (const auto& n : *names) add_component(out, component, dist_info_version(n, dist));
        }
    }
    return out;
}

void find_candidates(Context& ctx, Candidates& cands) {
    for (const auto& dir : ctx.host.glob("/usr/local", "cuda-*")) cands.add(dir, "/usr/local/cuda-*");
    cands.add("/usr/local/cuda", "/usr/local/cuda");
    cands.add("/opt/cuda", "/opt/cuda");
    for (const auto& dir : ctx.host.glob("/opt", "cuda-*")) cands.add(dir, "/opt/cuda-*");
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        if (auto v = ctx.host.env(var); v && !v->empty()) cands.add(*v, var);
    }
    for (const auto& real : ctx.snap.environment.nvcc_on_path_real) {
        const std::string bin = host::dirname(real);
        if (host::basename(bin) == "bin") cands.add(host::dirname(bin), "PATH");
    }
    static const RE2 kDebToolkit(R"(cuda-(?:toolkit|nvcc|cudart)-(\d+)-(\d+))");
    for (const auto& pkg : ctx.dpkg) {
        std::string major, minor;
        if (RE2::FullMatch(pkg.name, kDebToolkit, &major, &minor)) {
            if (auto* c = cands.add("/usr/local/cuda-" + major + "." + minor, "dpkg")) {
                c->method_hint = snapshot::InstallMethod::deb;
                const std::string upstream = pkg.version.substr(0, pkg.version.find('-'));  // "12.6.2-1" → 12.6.2
                if (pkg.name.starts_with("cuda-nvcc") || c->version_hint.empty()) {
                    c->version_hint = upstream;
                    c->version_hint_source = "dpkg";
                }
                // cuda-toolkit-12-6's version is the release; cuda-nvcc / cuda-cudart carry their components'.
                if (pkg.name.starts_with("cuda-toolkit")) {
                    c->release_hint = upstream;
                    c->release_hint_source = "dpkg";
                } else {
                    add_component(c->components, pkg.name.starts_with("cuda-nvcc") ? "cuda_nvcc" : "cuda_cudart", upstream);
                }
            }
        } else if (pkg.name == "nvidia-cuda-toolkit") {
            for (const char* dir : {"/usr/lib/nvidia-cuda-toolkit", "/usr"}) {
                if (!ctx.host.is_executable_file(host::join(dir, "bin/nvcc"))) continue;
                if (auto* c = cands.add(dir, "dpkg")) {
                    c->method_hint = snapshot::InstallMethod::deb;
                    // "11.8.89~11.8.0-5~deb12u1": the nvcc version before the tilde.
                    c->version_hint = pkg.version.substr(0, pkg.version.find_first_of("~-"));
                    c->version_hint_source = "dpkg";
                    add_component(c->components, "cuda_nvcc", c->version_hint);
                }
                break;
            }
        }
    }
    for (const auto& site : ctx.python_sites) {
        const std::string nv = host::join(site.dir, "nvidia");
        if (!ctx.host.is_dir(nv)) continue;
        std::string source;
        auto site_names = ctx.host.list_dir(site.dir);
        // CUDA 13 wheels share one tree, nvidia/cu13; CUDA 12 wheels one folder each.
        for (const auto& tree : ctx.host.glob(nv, "cu[0-9]*")) {
            if (auto* c = cands.add(tree, "pip")) {
                c->method_hint = snapshot::InstallMethod::pip;
                c->version_hint = version_from_dist_infos(ctx, {site.dir}, source);
                c->version_hint_source = source;
                c->components = components_from_dist_infos(ctx, {site.dir});
            }
        }
        const std::string runtime = host::join(nv, "cuda_runtime");
        if (ctx.host.is_dir(runtime)) {
            if (auto* c = cands.add(runtime, "pip")) {
                c->method_hint = snapshot::InstallMethod::pip;
                c->version_hint = version_from_dist_infos(ctx, {site.dir}, source);
                c->version_hint_source = source;
                c->components = components_from_dist_infos(ctx, {site.dir});
                const std::string nvcc = host::join(nv, "cuda_nvcc/bin/nvcc");
                if (ctx.host.is_executable_file(nvcc)) c->nvcc_hint = nvcc;
            }
        }
    }
    for (const auto& env : ctx.snap.environment.conda_envs) {
        std::string best, best_source;
        int best_rank = 99;
        for (const auto& file : ctx.host.glob(host::join(env, "conda-meta"), "*.json")) {
            const std::string name = host::basename(file);
            static const std::array<std::string_view, 4> kRanked = {"cuda-nvcc-", "cuda-cudart-", "cudatoolkit-", "cuda-version-"};
            int rank = 0;
            for (; rank < 4; ++rank)
                if (name.starts_with(kRanked[static_cast<std::size_t>(rank)])) break;
            if (rank >= 4 || rank >= best_rank) continue;
            auto pkg = ctx.read_conda_meta(kToolkitProbe, file);
            if (!pkg) continue;
            best = pkg->version;
            best_rank = rank;
            best_source = "conda-meta/" + name;
        }
        if (best.empty()) continue;
        if (auto* c = cands.add(env, "conda")) {
            c->method_hint = snapshot::InstallMethod::conda;
            c->version_hint = best;
            c->version_hint_source = best_source;
            // cudatoolkit's version is the release (11.3.1); cuda-nvcc / cuda-cudart carry their components'.
            if (best_rank == 2) {
                c->release_hint = best;
                c->release_hint_source = best_source;
            } else if (best_rank < 2) {
                add_component(c->components, best_rank == 0 ? "cuda_nvcc" : "cuda_cudart", best);
            }
        }
    }
}

std::string first_existing(Context& ctx, const std::string& root, std::initializer_list<const char*> rels) {
    for (const char* rel : rels) {
        auto p = host::join(root, rel);
        if (ctx.host.is_file(p)) return p;
    }
    return {};
}

void read_version(Context& ctx, const Candidate& c, snapshot::Toolkit& tk) {
    const std::string json_path = host::join(c.path, "version.json");
    if (auto data = ctx.read(kToolkitProbe, json_path, 1u << 20)) {
        auto parsed = formats::parse_cuda_version_json(*data);
        if (!parsed) {
            ctx.note(kToolkitProbe, json_path, parsed.error().message);
        } else {
            // The "cuda" key can be date-stamped (12.6.20241114): trust its major.minor only.
            std::string v = !parsed->nvcc.empty() ? parsed->nvcc : parsed->cudart;
            if (v.empty() && Version::parse(parsed->cuda)) v = Version::parse(parsed->cuda)->truncated(2).str();
            if (auto release = Version::parse(parsed->cuda)) {
                tk.release = release->part(2) > 1000 ? release->truncated(2).str() : release->str();
                tk.release_source = "version.json";
            }
            add_component(tk.components, "cuda_nvcc", parsed->nvcc);
            add_component(tk.components, "cuda_cudart", parsed->cudart);
            if (!v.empty() && Version::parse(v)) {
                tk.version = v;
                tk.version_source = "version.json";
                tk.evidence.push_back({json_path, "cuda " + parsed->cuda + ", nvcc " + parsed->nvcc});
                return;
            }
            ctx.note(kToolkitProbe, json_path, "no usable version in it");
        }
    }
    const std::string txt_path = host::join(c.path, "version.txt");
    if (auto data = ctx.read(kToolkitProbe, txt_path, 1u << 16)) {
        if (auto v = formats::parse_cuda_version_txt(*data)) {
            tk.version = v->str();
            tk.version_source = "version.txt";
            tk.evidence.push_back({txt_path, tk.version});
            return;
        } else {
            ctx.note(kToolkitProbe, txt_path, v.error().message);
        }
    }
    std::string source;
    if (auto v = version_from_dist_infos(ctx, {host::join(c.path, "dist-info"), host::join(c.path, "lib")}, source); !v.empty()) {
        for (const auto& comp : components_from_dist_infos(ctx, {host::join(c.path, "dist-info"), host::join(c.path, "lib")}))
            add_component(tk.components, comp.name, comp.version);
        tk.version = v;
        tk.version_source = source;
        tk.evidence.push_back({host::join(c.path, "dist-info"), "nvidia_cuda_nvcc / nvidia_cuda_runtime " + v});
        return;
    }
    if (!c.version_hint.empty() && Version::parse(c.version_hint)) {
        tk.version = c.version_hint;
        tk.version_source = c.version_hint_source;
        tk.evidence.push_back({c.version_hint_source, c.version_hint});
        return;
    }
    const std::string cuda_h =
        first_existing(ctx, c.path, {"include/cuda.h", "targets/x86_64-linux/include/cuda.h", "targets/sbsa-linux/include/cuda.h"});
    if (!cuda_h.empty()) {
        if (auto data = ctx.read(kToolkitProbe, cuda_h, 4u << 20)) {
            if (auto v = formats::parse_cuda_h_version(*data)) {
                tk.version = v->str();
                tk.version_source = "cuda.h";
                tk.evidence.push_back({cuda_h, "CUDA_VERSION → " + tk.version});
                return;
            } else {
                ctx.note(kToolkitProbe, cuda_h, v.error().message);
            }
        }
    }
    // An image is inert: its nvcc is a program of another machine (or of whoever made the image)
    // and would run here, as the user running cudoctor: never started under --root.
    if (tk.has_nvcc && ctx.host.is_rooted()) {
        ctx.note(kToolkitProbe, tk.nvcc_path + " --version", std::string(host::kNotRunInImage));
    } else if (tk.has_nvcc && ctx.options.allow_processes) {
        auto run = ctx.host.run({tk.nvcc_path, "--version"}, ctx.options.process_timeout);
        if (!run) {
            ctx.note(kToolkitProbe, tk.nvcc_path + " --version", run.error().message);
        } else if (auto v = formats::parse_nvcc_version_output(run->out)) {
            tk.version = v->str();
            tk.version_source = "nvcc";
            add_component(tk.components, "cuda_nvcc", tk.version);
            tk.evidence.push_back({tk.nvcc_path + " --version", tk.version});
        } else {
            ctx.note(kToolkitProbe, tk.nvcc_path + " --version", v.error().message);
        }
    }
}

/// True for a path inside a Python site folder (…/site-packages/…, Debian's …/dist-packages/…).
bool inside_site_packages(std::string_view path) {
    for (std::string_view site : {"/site-packages", "/dist-packages"}) {
        const auto at = path.find(site);
        if (at != std::string_view::npos && (at + site.size() == path.size() || path[at + site.size()] == '/')) return true;
    }
    return false;
}

snapshot::InstallMethod install_method(Context& ctx, const Candidate& c, const snapshot::Toolkit& tk) {
    using snapshot::InstallMethod;
    if (c.method_hint != InstallMethod::unknown) return c.method_hint;
    if (ctx.host.is_dir(host::join(c.path, "conda-meta"))) return InstallMethod::conda;
    if (auto v = Version::parse(tk.version)) {
        const std::string suffix = "-" + std::to_string(v->major()) + "-" + std::to_string(v->minor());
        for (const auto& pkg : ctx.dpkg) {
            if (pkg.name.starts_with("cuda-") && pkg.name.ends_with(suffix) && c.path == "/usr/local/cuda-" + v->truncated(2).str())
                return InstallMethod::deb;
        }
    }
    if (ctx.host.exists(host::join(c.path, "bin/cuda-uninstaller"))) return InstallMethod::runfile;
    // Wheel metadata alone does not make a pip install: a toolkit folder assembled from NVIDIA's
    // wheels (/usr/local/cuda-13.0 with a dist-info/ folder, nvcc in bin/) is a system toolkit
    // that nothing we know of owns. Only a tree inside site-packages belongs to pip.
    if (inside_site_packages(c.path) &&
        (ctx.host.is_dir(host::join(c.path, "dist-info")) || !ctx.host.glob(host::join(c.path, "lib"), "nvidia_cuda_*.dist-info").empty()))
        return InstallMethod::pip;
    return InstallMethod::unknown;
}

void read_host_config(Context& ctx, const Candidate& c, snapshot::Toolkit& tk) {
    const std::string path = first_existing(ctx, c.path,
                                            {"include/crt/host_config.h", "targets/x86_64-linux/include/crt/host_config.h",
                                             "targets/sbsa-linux/include/crt/host_config.h"});
    if (!path.empty()) {
        if (auto data = ctx.read(kToolkitProbe, path, 1u << 20)) {
            auto limits = formats::parse_host_config(*data);
            if (limits.max_gcc_major) {
                tk.max_gcc = limits.max_gcc_major;
                tk.max_gcc_source = path.substr(c.path.size() + 1);
                tk.evidence.push_back({path, "gcc ≤ " + std::to_string(*limits.max_gcc_major)});
                return;
            }
            ctx.note(kToolkitProbe, path, "no gcc version check found in it");
        }
    }
    if (tk.has_nvcc) {  // a runtime-only wheel compiles nothing
        if (auto g = kb::max_gcc_for(ctx.kb, tk)) {
            tk.max_gcc = g;
            tk.max_gcc_source = "kb:cuda_gcc.tsv";
        }
    }
}

/// Where the toolkit's libcudart lives, its SONAME, and whether the loader finds that folder
/// (the loader cache names it, or LD_LIBRARY_PATH does).
void read_cudart(Context& ctx, const Candidate& c, snapshot::Toolkit& tk) {
    for (const char* lib : {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"}) {
        auto dir = ctx.host.resolve(host::join(c.path, lib));
        if (!dir) continue;
        auto names = ctx.host.list_dir(*dir);
        if (!names) continue;
        for (const auto& n : *names) {
            // The SONAME is the shortest versioned name: libcudart.so.12 (11.x: libcudart.so.11.0).
            if (!n.starts_with("libcudart.so.")) continue;
            if (tk.cudart_soname.empty() || n.size() < tk.cudart_soname.size()) tk.cudart_soname = n;
        }
        if (!tk.cudart_soname.empty()) {
            tk.lib_dir = *dir;
            break;
        }
    }
    if (tk.lib_dir.empty()) return;
    auto same_dir = [&](const std::string& d) {
        auto real = ctx.host.resolve(d);
        return real && *real == tk.lib_dir;
    };
    for (const auto& e : ctx.snap.environment.loader_cache) {
        if (e.soname.starts_with("libcudart.so") && same_dir(host::dirname(e.path))) tk.cudart_loader_visible = true;
    }
    for (const auto& e : ctx.snap.environment.ld_library_path) {
        if (e.exists && same_dir(e.path)) tk.cudart_loader_visible = true;
    }
}

}  // namespace

void probe_toolkits(Context& ctx) {
    Candidates cands(ctx);
    find_candidates(ctx, cands);
    const auto default_path = ctx.host.resolve("/usr/local/cuda");
    const auto& path_nvcc = ctx.snap.environment.nvcc_on_path_real;
    for (const auto& c : cands.list()) {
        snapshot::Toolkit tk;
        tk.path = c.path;
        tk.found_by = c.found_by;
        const std::string nvcc = c.nvcc_hint.empty() ? host::join(c.path, "bin/nvcc") : c.nvcc_hint;
        tk.has_nvcc = ctx.host.is_executable_file(nvcc);
        if (tk.has_nvcc) tk.nvcc_path = nvcc;
        read_version(ctx, c, tk);
        if (tk.release.empty() && !c.release_hint.empty() && Version::parse(c.release_hint)) {
            tk.release = c.release_hint;
            tk.release_source = c.release_hint_source;
        }
        for (const auto& comp : c.components) add_component(tk.components, comp.name, comp.version);
        // A folder named like a toolkit but with nothing of one in it is not reported.
        if (tk.version.empty() && !tk.has_nvcc) {
            if (c.path.starts_with("/usr/local/cuda") || c.path.starts_with("/opt/cuda"))
                ctx.note(kToolkitProbe, c.path, "looks like a toolkit folder but holds no version file, cuda.h or nvcc");
            continue;
        }
        tk.install_method = install_method(ctx, c, tk);
        tk.is_default = default_path && *default_path == c.path;
        if (tk.has_nvcc) {
            auto real = real_nvcc(ctx, nvcc);
            tk.on_path = real && std::find(path_nvcc.begin(), path_nvcc.end(), *real) != path_nvcc.end();
            tk.first_on_path = real && !path_nvcc.empty() && path_nvcc.front() == *real;
        }
        read_host_config(ctx, c, tk);
        read_cudart(ctx, c, tk);
        ctx.snap.toolkits.push_back(std::move(tk));
    }
    std::stable_sort(ctx.snap.toolkits.begin(), ctx.snap.toolkits.end(), [](const auto& a, const auto& b) {
        auto va = Version::parse(a.version), vb = Version::parse(b.version);
        if (va && vb && *va != *vb) return *va < *vb;
        return a.path < b.path;
    });
}

}  // namespace cudoctor::probe
