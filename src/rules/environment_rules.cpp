// Environment rules: LD_LIBRARY_PATH hygiene, a libcudart the loader cannot find, several
// copies of one libcudart, and a conda runtime mixed with another.
#include <algorithm>
#include <map>

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

std::string cleaned_ld_library_path(const Snapshot& s) {
    std::string out;
    for (const auto& e : s.environment.ld_library_path) {
        if (e.empty || !e.exists) continue;
        out += (out.empty() ? "" : ":") + e.path;
    }
    return out.empty() ? "unset LD_LIBRARY_PATH" : "export LD_LIBRARY_PATH=" + out;
}

std::vector<Finding> missing_dir(const Snapshot& s, const kb::Kb&) {
    std::vector<Evidence> ev;
    std::string list;
    for (const auto& e : s.environment.ld_library_path) {
        if (e.empty || e.exists) continue;
        ev.push_back({"env LD_LIBRARY_PATH", e.path + " does not exist"});
        list += (list.empty() ? "" : ", ") + e.path;
    }
    if (ev.empty()) return {};
    return {finding("LD_LIBRARY_PATH names folders that do not exist: " + list,
                    "Usually a toolkit that was removed or a version typo: the libraries meant to come from there are "
                    "found somewhere else, or not at all (\"cannot open shared object file\").",
                    cleaned_ld_library_path(s) + "\n# and fix the line that sets it (~/.bashrc, /etc/profile.d/)", ev)};
}

std::vector<Finding> empty_entry(const Snapshot& s, const kb::Kb&) {
    const auto& entries = s.environment.ld_library_path;
    // `LD_LIBRARY_PATH=` (set, but to nothing) is one empty entry, and glibc ignores it: only an
    // empty entry beside others (":a", "a::b", "a:") makes the loader search the working directory.
    if (entries.size() < 2) return {};
    const auto n = std::count_if(entries.begin(), entries.end(), [](const auto& e) { return e.empty; });
    if (n == 0) return {};
    return {finding("LD_LIBRARY_PATH has an empty entry, which means the current directory",
                    "A leading, trailing or doubled ':' (often `export LD_LIBRARY_PATH=/x:$LD_LIBRARY_PATH` with the "
                    "variable unset) makes the loader search the working directory: a library dropped there is loaded "
                    "instead of the real one.",
                    cleaned_ld_library_path(s) +
                        "\n# write it as: export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}",
                    {{"env LD_LIBRARY_PATH", fmt::format("{} empty entr{}", n, n == 1 ? "y" : "ies")}})};
}

std::vector<Finding> cudart_not_loadable(const Snapshot& s, const kb::Kb&) {
    const auto* tk = default_toolkit(s);
    if (!tk) tk = path_toolkit(s);
    if (!tk || !is_system_toolkit(*tk) || tk->lib_dir.empty() || tk->cudart_loader_visible) return {};
    auto v = Version::parse(tk->version);
    const std::string conf = v ? fmt::format("/etc/ld.so.conf.d/cuda-{}-{}.conf", v->major(), v->minor()) : "/etc/ld.so.conf.d/cuda.conf";
    return {finding(fmt::format("{}'s {} is not on the loader path", toolkit_label(*tk), tk->cudart_soname),
                    fmt::format("Programs linked against the shared CUDA runtime fail to start: \"error while loading shared "
                                "libraries: {}: cannot open shared object file: No such file or directory\".",
                                tk->cudart_soname),
                    fmt::format("echo {} | sudo tee {}\nsudo ldconfig", tk->lib_dir, conf),
                    {{tk->lib_dir, tk->cudart_soname},
                     {"/etc/ld.so.cache", "does not list " + tk->lib_dir},
                     {"env LD_LIBRARY_PATH", "does not name it"}})};
}

/// "libcudart.so.12.4.127" → "libcudart.so.12"; "libcudart.so.11.0" stays (11.x SONAME).
std::string cudart_soname_of(const std::string& name) {
    const auto pos = name.find(".so.");
    if (pos == std::string::npos) return {};
    auto v = Version::parse(name.substr(pos + 4));
    if (!v) return {};
    return v->major() == 11 || v->major() == 10 ? fmt::format("libcudart.so.{}.{}", v->major(), v->minor())
                                                : fmt::format("libcudart.so.{}", v->major());
}

std::vector<Finding> multiple_cudart(const Snapshot& s, const kb::Kb&) {
    // Per SONAME, the folders that provide it, in the loader's search order: LD_LIBRARY_PATH, then the cache.
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> providers;
    auto add = [&](const std::string& soname, const std::string& dir, const std::string& how) {
        auto& list = providers[soname];
        if (std::none_of(list.begin(), list.end(), [&](const auto& p) { return p.first == dir; })) list.emplace_back(dir, how);
    };
    for (const auto& e : s.environment.ld_library_path) {
        if (!e.exists) continue;
        for (const auto& lib : e.cuda_libraries)
            if (lib.starts_with("libcudart.so.")) add(cudart_soname_of(lib), e.real_path.empty() ? e.path : e.real_path, "LD_LIBRARY_PATH");
    }
    // An entry whose folder no longer resolves (a toolkit removed without running ldconfig) is no
    // copy the loader can load: it proves nothing about a second runtime.
    for (const auto& e : s.environment.loader_cache)
        if (e.soname.starts_with("libcudart.so.") && !e.real_dir.empty()) add(e.soname, e.real_dir, "loader cache");
    std::vector<Finding> out;
    for (const auto& [soname, list] : providers) {
        if (soname.empty() || list.size() < 2) continue;
        std::vector<Evidence> ev;
        for (std::size_t i = 0; i < list.size(); ++i)
            ev.push_back({list[i].second, list[i].first + "/" + soname + (i == 0 ? " (wins)" : "")});
        std::string others;
        for (std::size_t i = 1; i < list.size(); ++i) others += (others.empty() ? "" : ", ") + list[i].first;
        out.push_back(finding(fmt::format("{} is reachable from {} folders; {} wins", soname, list.size(), list.front().first),
                              "Programs get whichever copy the loader meets first (LD_LIBRARY_PATH, then /etc/ld.so.cache in "
                              "its order): switching toolkits does not switch the runtime, and two libraries of one program "
                              "can end up with different runtimes.",
                              fmt::format("grep -l -E '{}' /etc/ld.so.conf.d/*.conf   # the files that add the others\n"
                                          "# remove those lines (or LD_LIBRARY_PATH entries), keep one toolkit's lib64, then:\n"
                                          "sudo ldconfig",
                                          others),
                              ev));
    }
    return out;
}

std::vector<Finding> conda_runtime_conflict(const Snapshot& s, const kb::Kb&) {
    const auto& active = s.environment.active_conda_env;
    if (!active) return {};
    const snapshot::Toolkit* conda = nullptr;
    for (const auto& tk : s.toolkits)
        if (tk.install_method == snapshot::InstallMethod::conda && tk.path == *active && !tk.lib_dir.empty()) conda = &tk;
    if (!conda) return {};
    std::vector<Evidence> ev = {{conda->lib_dir, conda->cudart_soname + " (conda, CUDA " + conda->version + ")"}};
    for (const auto& e : s.environment.ld_library_path) {
        const std::string dir = e.real_path.empty() ? e.path : e.real_path;
        if (dir == conda->lib_dir) continue;
        for (const auto& lib : e.cuda_libraries)
            if (lib.starts_with("libcudart.so.")) ev.push_back({"env LD_LIBRARY_PATH", e.path + "/" + lib});
    }
    for (const auto& e : s.environment.loader_cache)
        if (e.soname.starts_with("libcudart.so.") && e.real_dir != conda->lib_dir) ev.push_back({"/etc/ld.so.cache", e.path});
    if (ev.size() == 1) return {};
    return {finding(fmt::format("The conda env {} brings CUDA {} while another CUDA runtime is on the loader path", *active, conda->version),
                    "Inside the env, libraries built against conda's runtime can load the system's (LD_LIBRARY_PATH wins "
                    "over RPATH-less conda libraries, and the loader cache answers for what conda lacks): symbol errors, "
                    "\"CUDA driver version is insufficient\" or silent use of the wrong cuDNN.",
                    fmt::format("conda env config vars set -p {} LD_LIBRARY_PATH=   # inside this env: no system CUDA on the path\n"
                                "conda deactivate && conda activate {}",
                                *active, *active),
                    ev)};
}

}  // namespace

std::vector<Rule> environment_rules() {
    return {
        {"ld-library-path-missing-dir", Layer::environment, Severity::warning, "LD_LIBRARY_PATH names folders that do not exist",
         "Lists them; the fix is LD_LIBRARY_PATH without them.", missing_dir},
        {"ld-library-path-empty-entry", Layer::environment, Severity::warning, "an empty LD_LIBRARY_PATH entry (the current directory)",
         "An empty entry makes the loader search the working directory: a hijack risk and a source of wrong libraries.", empty_entry},
        {"cudart-not-loadable", Layer::environment, Severity::warning,
         "the default toolkit's libcudart is in neither the loader cache nor LD_LIBRARY_PATH",
         "Predicts \"libcudart.so.12: cannot open shared object file\"; the fix is an /etc/ld.so.conf.d file and ldconfig.",
         cudart_not_loadable},
        {"multiple-cudart-on-loader-path", Layer::environment, Severity::warning, "one libcudart SONAME reachable from several folders",
         "Lists the folders in the loader's order and names the one that wins.", multiple_cudart},
        {"conda-cuda-runtime-conflict", Layer::environment, Severity::warning,
         "a conda env's CUDA runtime and another one are both on the loader path",
         "The active conda env has its own libcudart while LD_LIBRARY_PATH or the loader cache brings another.", conda_runtime_conflict},
    };
}

}  // namespace cudoctor::rules::detail
