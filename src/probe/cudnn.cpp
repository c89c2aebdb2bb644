// cuDNN probe: every copy — inside a toolkit, in the system library folders (a .deb), in a pip
// wheel, in a conda environment, or anywhere else the loader cache knows — with its version
// (header and library names), the CUDA major it is built for, and whether the loader finds it.
#include <algorithm>
#include <regex>

#include "common/text.hpp"
#include "common/version.hpp"
#include "formats/c_header.hpp"
#include "formats/conda_meta.hpp"
#include "probe/context.hpp"
#include "probe/cuda_libs.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kCudnnProbe = "cudnn";

struct Copy {
    std::string lib_dir;               // canonical; may be ""
    std::vector<std::string> headers;  // candidate cudnn_version headers, first found wins
    std::string location;
    std::string cuda_major;
    std::string version_hint;  // dist-info or package metadata
    std::string evidence_hint;
};

/// Versions of the libcudnn.so.* files in `dir` ("9.1.0", "9"), most precise first.
std::vector<std::string> library_versions(Context& ctx, const std::string& dir) {
    std::vector<std::string> out;
    auto names = ctx.host.list_dir(dir);
    if (!names) return out;
    for (const auto& n : *names) {
        if (!n.starts_with("libcudnn.so.")) continue;
        auto v = std::string(so_version(n));
        if (Version::parse(v) && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return std::count(a.begin(), a.end(), '.') > std::count(b.begin(), b.end(), '.'); });
    return out;
}

bool loader_visible(Context& ctx, const std::string& lib_dir) {
    for (const auto& e : ctx.snap.environment.loader_cache) {
        if (e.soname.starts_with("libcudnn.so") && host::dirname(e.path) == lib_dir) return true;
        if (e.soname.starts_with("libcudnn.so")) {
            if (auto real = ctx.host.resolve(host::dirname(e.path)); real && *real == lib_dir) return true;
        }
    }
    for (const auto& e : ctx.snap.environment.ld_library_path) {
        if (!e.exists) continue;
        if (auto real = ctx.host.resolve(e.path); real && *real == lib_dir) return true;
    }
    return false;
}

/// "libcudnn9-cuda-12" → 12; "8.9.7.29-1+cuda12.2" → 12.
std::string cuda_major_from_deb(Context& ctx) {
    static const std::regex kName(R"(libcudnn\d+-cuda-(\d+))");
    static const std::regex kVersion(R"(\+cuda(\d+))");
    for (const auto& p : ctx.dpkg) {
        std::smatch m;
        if (std::regex_match(p.name, m, kName)) return m[1].str();
        if (p.name.starts_with("libcudnn") && std::regex_search(p.version, m, kVersion)) return m[1].str();
    }
    return {};
}

void collect(Context& ctx, std::vector<Copy>& copies) {
    for (const auto& tk : ctx.snap.toolkits) {
        // Wheel trees and conda environments have their own sections below.
        if (!snapshot::is_system_toolkit(tk)) continue;
        const std::string major = std::to_string(Version::parse(tk.version).value_or(Version()).major());
        for (const char* lib : {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"}) {
            auto dir = ctx.host.resolve(host::join(tk.path, lib));
            if (!dir || library_versions(ctx, *dir).empty()) continue;
            copies.push_back({*dir,
                              {host::join(tk.path, "include/cudnn_version.h"), host::join(tk.path, "include/cudnn.h")},
                              "toolkit",
                              tk.version.empty() ? "" : major,
                              {},
                              {}});
        }
    }
    std::string deb_major = cuda_major_from_deb(ctx);
    for (const char* lib : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"}) {
        auto dir = ctx.host.resolve(lib);
        if (!dir || library_versions(ctx, *dir).empty()) continue;
        copies.push_back({*dir,
                          {"/usr/include/cudnn_version.h", "/usr/include/x86_64-linux-gnu/cudnn_version_v9.h",
                           "/usr/include/x86_64-linux-gnu/cudnn_version_v8.h", "/usr/include/cudnn.h"},
                          "system",
                          deb_major,
                          {},
                          {}});
    }
    for (const auto& site : ctx.python_sites) {
        const std::string base = host::join(site.dir, "nvidia/cudnn");
        if (!ctx.host.is_dir(base)) continue;
        Copy copy{host::join(base, "lib"), {host::join(base, "include/cudnn_version.h")}, "pip", {}, {}, {}};
        if (auto real = ctx.host.resolve(copy.lib_dir)) copy.lib_dir = *real;
        for (const auto& info : ctx.host.glob(site.dir, "nvidia_cudnn_cu*-*.dist-info")) {
            const std::string name = host::basename(info);  // nvidia_cudnn_cu12-9.1.0.70.dist-info
            const auto dash = name.find('-');
            const auto cu = name.rfind("_cu", dash);
            copy.cuda_major = name.substr(cu + 3, dash - cu - 3);
            copy.version_hint = name.substr(dash + 1, name.size() - dash - 1 - 10);
            copy.evidence_hint = info;
        }
        copies.push_back(std::move(copy));
    }
    static const std::regex kCondaCuda(R"(cuda(\d+))");
    for (const auto& env : ctx.snap.environment.conda_envs) {
        const std::string lib = host::join(env, "lib");
        if (library_versions(ctx, lib).empty()) continue;
        Copy copy{
            *ctx.host.resolve(lib), {host::join(env, "include/cudnn_version.h"), host::join(env, "include/cudnn.h")}, "conda", {}, {}, {}};
        for (const auto& file : ctx.host.glob(host::join(env, "conda-meta"), "cudnn-*.json")) {
            auto pkg = ctx.read_conda_meta(kCudnnProbe, file);
            if (!pkg) continue;
            copy.version_hint = pkg->version;
            copy.evidence_hint = file;
            std::smatch m;
            if (std::regex_search(pkg->build, m, kCondaCuda)) copy.cuda_major = m[1].str();
            for (const auto& dep : pkg->depends) {
                if (!copy.cuda_major.empty()) break;
                if (dep.starts_with("cudatoolkit ") || dep.starts_with("cuda-version ")) {
                    auto spec = dep.substr(dep.find(' ') + 1);
                    spec.erase(0, spec.find_first_of("0123456789"));
                    if (auto v = Version::parse(spec)) copy.cuda_major = std::to_string(v->major());
                }
            }
        }
        copies.push_back(std::move(copy));
    }
    // Anything else the loader knows (a copy dropped into /opt/…/lib and named in ld.so.conf).
    for (const auto& e : ctx.snap.environment.loader_cache) {
        if (!e.soname.starts_with("libcudnn.so")) continue;
        auto dir = ctx.host.resolve(host::dirname(e.path));
        if (!dir) continue;
        bool known = std::any_of(copies.begin(), copies.end(), [&](const Copy& c) { return c.lib_dir == *dir; });
        if (!known) copies.push_back({*dir, {}, "system", {}, {}, {}});
    }
}

}  // namespace

void probe_cudnn(Context& ctx) {
    std::vector<Copy> copies;
    collect(ctx, copies);
    std::vector<std::string> seen;
    for (auto& copy : copies) {
        if (std::find(seen.begin(), seen.end(), copy.lib_dir) != seen.end()) continue;
        seen.push_back(copy.lib_dir);
        snapshot::Cudnn c;
        c.path = copy.lib_dir;
        c.location = copy.location;
        c.cuda_major = copy.cuda_major;
        c.library_versions = library_versions(ctx, copy.lib_dir);
        for (const auto& h : copy.headers) {
            auto data = ctx.read(kCudnnProbe, h, 4u << 20);
            if (!data) continue;
            auto v = formats::parse_cudnn_version_header(*data);
            if (v) {
                c.header_version = v->str();
                c.evidence.push_back({h, c.header_version});
                break;
            }
            if (v.error().code != Errc::not_found) ctx.note(kCudnnProbe, h, v.error().message);
        }
        if (!copy.evidence_hint.empty()) c.evidence.push_back({copy.evidence_hint, copy.version_hint});
        for (const auto& lv : c.library_versions) c.evidence.push_back({host::join(copy.lib_dir, "libcudnn.so." + lv), lv});
        // The most precise fact wins: the header (refined by the wheel's 9.1.0.70 where they
        // agree), a full library name, package metadata, a bare major.
        if (!c.header_version.empty()) {
            c.version = copy.version_hint.starts_with(c.header_version + ".") ? copy.version_hint : c.header_version;
        } else if (!c.library_versions.empty() && text::contains(c.library_versions.front(), ".")) {
            c.version = c.library_versions.front();
        } else if (!copy.version_hint.empty()) {
            c.version = copy.version_hint;
        } else if (!c.library_versions.empty()) {
            c.version = c.library_versions.front();
        }
        if (c.version.empty()) continue;
        c.loader_visible = loader_visible(ctx, copy.lib_dir);
        ctx.snap.cudnn.push_back(std::move(c));
    }
}

}  // namespace cudoctor::probe
