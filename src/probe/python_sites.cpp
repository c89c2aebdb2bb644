#include "probe/python_sites.hpp"

#include <algorithm>

#include "common/text.hpp"
#include "formats/python_meta.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kPythonProbe = "python";

class SiteList {
  public:
    explicit SiteList(Context& ctx) : m_ctx(ctx) {}
    void add(const std::string& dir, const std::string& interpreter, const std::string& version, bool headers) {
        auto real = m_ctx.host.resolve(dir);
        if (!real || !m_ctx.host.is_dir(*real)) return;
        for (const auto& s : m_sites)
            if (s.dir == *real) return;
        m_sites.push_back({*real, interpreter, version, headers});
    }
    std::vector<PythonSite> take() { return std::move(m_sites); }

  private:
    Context& m_ctx;
    std::vector<PythonSite> m_sites;
};

/// "python3.11" → "3.11"; "" when the name carries no version.
std::string version_of_name(std::string_view name) {
    if (!name.starts_with("python3.")) return {};
    auto v = name.substr(6);
    if (v.empty() || !std::all_of(v.begin(), v.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; })) return {};
    return std::string(v);
}

/// The X.Y versions a prefix has lib/pythonX.Y folders for.
std::vector<std::string> lib_versions(Context& ctx, const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& dir : ctx.host.glob(host::join(prefix, "lib"), "python3.*")) {
        if (auto v = version_of_name(host::basename(dir)); !v.empty()) out.push_back(v);
    }
    return out;
}

/// `include_prefix` is where Python.h lives: the prefix itself, or a venv's base installation.
void add_prefix(Context& ctx, SiteList& sites, const std::string& prefix, const std::string& interpreter, std::vector<std::string> versions,
                const std::string& include_prefix = {}) {
    if (versions.empty()) versions = lib_versions(ctx, prefix);
    for (const auto& v : versions) {
        const bool headers =
            ctx.host.is_file(host::join(include_prefix.empty() ? prefix : include_prefix, "include/python" + v + "/Python.h"));
        sites.add(host::join(prefix, "lib/python" + v + "/site-packages"), interpreter, v, headers);
        if (prefix == "/usr" || prefix == "/usr/local") {
            // Debian and Ubuntu: packages in dist-packages, pip as root in /usr/local.
            sites.add("/usr/local/lib/python" + v + "/dist-packages", interpreter, v, headers);
            sites.add("/usr/lib/python3/dist-packages", interpreter, v, headers);
        }
        const std::string home = ctx.host.env("HOME").value_or("/root");
        sites.add(host::join(home, ".local/lib/python" + v + "/site-packages"), interpreter, v, headers);
    }
}

/// One interpreter path as found (not yet resolved): venv, pyenv shim or plain prefix.
void add_interpreter(Context& ctx, SiteList& sites, const std::string& path) {
    const std::string bin = host::dirname(path);
    const std::string unresolved_prefix = host::dirname(bin);
    // A venv's bin/python is a link to its base interpreter: read pyvenv.cfg before resolving.
    if (auto cfg = ctx.read(kPythonProbe, host::join(unresolved_prefix, "pyvenv.cfg"))) {
        auto keys = formats::parse_pyvenv_cfg(*cfg);
        add_prefix(ctx, sites, unresolved_prefix, path, {}, keys["home"].empty() ? "" : host::dirname(keys["home"]));
        if (keys["include-system-site-packages"] == "true" && !keys["home"].empty())
            add_interpreter(ctx, sites, host::join(keys["home"], "python3"));
        return;
    }
    if (text::contains(path, "/.pyenv/shims/")) {
        const std::string root = ctx.host.env("PYENV_ROOT").value_or(host::dirname(unresolved_prefix));
        std::string version = ctx.host.env("PYENV_VERSION").value_or("");
        if (version.empty()) {
            if (auto f = ctx.read(kPythonProbe, host::join(root, "version"))) {
                auto ls = text::lines(*f);
                if (!ls.empty()) version = std::string(text::trim(ls.front()));
            }
        }
        if (!version.empty() && version != "system") {
            add_prefix(ctx, sites, host::join(root, "versions/" + version), path, {});
            return;
        }
    }
    auto real = ctx.host.resolve(path);
    if (!real) return;
    const std::string prefix = host::dirname(host::dirname(*real));
    std::vector<std::string> versions;
    if (auto v = version_of_name(host::basename(*real)); !v.empty()) versions.push_back(v);
    add_prefix(ctx, sites, prefix, path, versions);
}

}  // namespace

std::vector<PythonSite> find_python_sites(Context& ctx) {
    SiteList sites(ctx);
    for (const auto& p : ctx.options.pythons) add_interpreter(ctx, sites, p);
    if (auto venv = ctx.host.env("VIRTUAL_ENV"); venv && !venv->empty()) add_interpreter(ctx, sites, host::join(*venv, "bin/python"));
    for (const char* name : {"python3", "python"}) {
        for (const auto& dir : ctx.snap.environment.path) {
            if (dir.empty() || !dir.starts_with('/')) continue;
            const auto candidate = host::join(dir, name);
            if (ctx.host.is_executable_file(candidate)) {
                add_interpreter(ctx, sites, candidate);
                break;
            }
        }
    }
    for (const auto& env : ctx.snap.environment.conda_envs) {
        const auto python = host::join(env, "bin/python");
        add_prefix(ctx, sites, env, ctx.host.exists(python) ? python : std::string(), {});
    }
    // Debian's own packages (python3-torch …) even when another python is first on PATH.
    if (ctx.host.exists("/usr/bin/python3")) add_interpreter(ctx, sites, "/usr/bin/python3");
    return sites.take();
}

}  // namespace cudoctor::probe
