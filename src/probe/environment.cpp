// Environment probe: PATH and the nvcc it finds, LD_LIBRARY_PATH, CUDA_* variables, the
// /usr/local/cuda link, /etc/ld.so.conf(.d), the loader cache, conda environments and the
// virtual environment. Python site discovery lives in python_sites.cpp, the shell start-up files
// in startup_files.cpp.
#include <algorithm>

#include "common/text.hpp"
#include "formats/ld_so_cache.hpp"
#include "probe/ahead.hpp"
#include "probe/context.hpp"
#include "probe/cuda_libs.hpp"
#include "probe/nvcc.hpp"
#include "probe/python_sites.hpp"
#include "probe/startup_files.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kEnvironmentProbe = "environment";
constexpr std::size_t kLdCacheCap = 64u << 20;

void read_path(Context& ctx) {
    auto& env = ctx.snap.environment;
    const auto path = ctx.host.env("PATH");
    if (!path) return;
    for (auto entry : text::split(*path, ':')) env.path.emplace_back(entry);
    for (const auto& dir : env.path) {
        if (dir.empty() || !dir.starts_with('/')) continue;  // relative entries depend on the cwd
        const auto nvcc = host::join(dir, "nvcc");
        if (ctx.host.is_executable_file(nvcc) && std::find(env.nvcc_on_path.begin(), env.nvcc_on_path.end(), nvcc) == env.nvcc_on_path.end()) {
            env.nvcc_on_path.push_back(nvcc);
            env.nvcc_on_path_real.push_back(real_nvcc(ctx, nvcc).value_or(nvcc));
        }
    }
    env.evidence.push_back({"env PATH", *path});
}

void read_ld_library_path(Context& ctx) {
    const auto value = ctx.host.env("LD_LIBRARY_PATH");
    if (!value) return;
    ctx.snap.environment.evidence.push_back({"env LD_LIBRARY_PATH", *value});
    for (auto entry : text::split(*value, ':')) {
        snapshot::LibraryPathEntry e;
        e.path = std::string(entry);
        e.empty = entry.empty();
        if (!e.empty) {
            e.exists = ctx.host.is_dir(e.path);
            if (e.exists) {
                if (auto real = ctx.host.resolve(e.path)) e.real_path = *real;
                if (auto names = ctx.host.list_dir(e.path)) {
                    for (const auto& n : *names)
                        if (is_cuda_library(n)) e.cuda_libraries.push_back(n);
                }
            }
        }
        ctx.snap.environment.ld_library_path.push_back(std::move(e));
    }
}

void read_cuda_symlink(Context& ctx) {
    auto& env = ctx.snap.environment;
    auto info = ctx.host.lstat("/usr/local/cuda");
    if (!info || info->type != host::FileType::symlink) return;
    auto target = ctx.host.read_link("/usr/local/cuda");
    if (!target) return;
    auto resolved = ctx.host.resolve("/usr/local/cuda");
    if (resolved) {
        env.cuda_symlink = *resolved;
    } else {
        env.cuda_symlink = target->starts_with('/') ? *target : host::join("/usr/local", *target);
        env.cuda_symlink_dangling = true;
        if (resolved.error().code == Errc::loop) ctx.note(kEnvironmentProbe, "/usr/local/cuda", resolved.error().message);
    }
    env.evidence.push_back({"/usr/local/cuda", "-> " + *target});
}

void read_ld_so_conf(Context& ctx, const std::string& file, int depth) {
    if (depth > 8) return;
    auto text_data = ctx.read(kEnvironmentProbe, file, 1u << 20);
    if (!text_data) return;
    auto& dirs = ctx.snap.environment.ld_so_conf_dirs;
    for (auto line : text::lines(*text_data)) {
        if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        line = text::trim(line);
        if (line.empty()) continue;
        if (line.starts_with("include") && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
            std::string pattern(text::trim(line.substr(7)));
            if (!pattern.starts_with('/')) pattern = host::join(host::dirname(file), pattern);
            for (const auto& inc : ctx.host.glob(host::dirname(pattern), host::basename(pattern))) read_ld_so_conf(ctx, inc, depth + 1);
            continue;
        }
        if (line.starts_with("hwcap")) continue;
        std::string dir(line);
        if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    }
}

void read_loader_cache(Context& ctx) {
    run_part(Part::loader_cache, ctx);
    if (!ctx.ld_cache) return;
    const auto& cache = *ctx.ld_cache;
    auto& env = ctx.snap.environment;
    env.loader_cache_format = formats::to_string(cache.format);
    for (const auto& e : cache.entries) {
        if (!is_cuda_library(e.key)) continue;
        auto dir = ctx.host.resolve(host::dirname(e.value));
        env.loader_cache.push_back({e.key, e.value, formats::ld_cache_arch_name(e.flags), dir ? *dir : std::string()});
    }
    env.evidence.push_back({"/etc/ld.so.cache", std::to_string(cache.entries.size()) + " entries, " + env.loader_cache_format + " format"});
}

bool is_conda_env(Context& ctx, const std::string& dir) { return ctx.host.is_dir(host::join(dir, "conda-meta")); }

void add_conda_env(Context& ctx, const std::string& dir) {
    auto real = ctx.host.resolve(dir);
    if (!real || !is_conda_env(ctx, *real)) return;
    auto& envs = ctx.snap.environment.conda_envs;
    if (std::find(envs.begin(), envs.end(), *real) == envs.end()) envs.push_back(*real);
}

void find_conda_envs(Context& ctx) {
    auto& env = ctx.snap.environment;
    if (auto prefix = ctx.host.env("CONDA_PREFIX"); prefix && !prefix->empty()) {
        env.active_conda_env = *prefix;
        add_conda_env(ctx, *prefix);
    }
    const std::string home = ctx.host.env("HOME").value_or("/root");
    if (auto list = ctx.read(kEnvironmentProbe, host::join(home, ".conda/environments.txt"))) {
        for (auto line : text::lines(*list))
            if (auto t = text::trim(line); !t.empty()) add_conda_env(ctx, std::string(t));
    }
    for (std::string base : {"miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba", ".conda"}) {
        const auto dir = host::join(home, base);
        add_conda_env(ctx, dir);
        for (const auto& e : ctx.host.glob(host::join(dir, "envs"), "*")) add_conda_env(ctx, e);
    }
    for (std::string base : {"/opt/conda", "/opt/miniconda3", "/opt/anaconda3", "/opt/miniforge3"}) {
        add_conda_env(ctx, base);
        for (const auto& e : ctx.host.glob(host::join(base, "envs"), "*")) add_conda_env(ctx, e);
    }
}

}  // namespace

void read_loader_cache_file(Context& ctx) {
    auto bytes = ctx.read(kEnvironmentProbe, "/etc/ld.so.cache", kLdCacheCap);
    if (!bytes) return;
    auto cache = formats::parse_ld_so_cache(*bytes);
    if (!cache) {
        ctx.note(kEnvironmentProbe, "/etc/ld.so.cache", cache.error().message);
        return;
    }
    ctx.ld_cache = std::move(*cache);
}

void probe_environment(Context& ctx) {
    auto& env = ctx.snap.environment;
    read_path(ctx);
    read_ld_library_path(ctx);
    env.cuda_home = ctx.host.env("CUDA_HOME");
    env.cuda_path = ctx.host.env("CUDA_PATH");
    env.cuda_visible_devices = ctx.host.env("CUDA_VISIBLE_DEVICES");
    env.virtual_env = ctx.host.env("VIRTUAL_ENV");
    read_startup_files(ctx);
    read_cuda_symlink(ctx);
    read_ld_so_conf(ctx, "/etc/ld.so.conf", 0);
    read_loader_cache(ctx);
    find_conda_envs(ctx);
    ctx.python_sites = find_python_sites(ctx);
    for (const auto& site : ctx.python_sites) ctx.snap.pythons.push_back({site.interpreter, site.version, site.dir, site.has_headers});
}

}  // namespace cudoctor::probe
