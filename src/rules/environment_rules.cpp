// Environment rules: LD_LIBRARY_PATH hygiene, a libcudart the loader cannot find, several
// copies of one libcudart, a conda runtime mixed with another, and the shell start-up lines
// behind them (an LD_LIBRARY_PATH that wipes the old one, CUDA appended after an older nvcc,
// CUDA_LAUNCH_BLOCKING left on, a removed toolkit still named).
#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "common/text.hpp"
#include "formats/shell_rc.hpp"
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

/// NVIDIA's CUDA images set LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64 for
/// the driver volume nvidia-docker 1 mounted there; today's runtime mounts the driver elsewhere,
/// so inside a container these two are missing on every healthy image.
bool image_driver_volume(const Snapshot& s, const std::string& path) {
    return !s.platform.container.empty() && (path == "/usr/local/nvidia/lib" || path == "/usr/local/nvidia/lib64");
}

std::vector<Finding> missing_dir(const Snapshot& s, const kb::Kb&) {
    std::vector<Evidence> ev;
    std::string list;
    for (const auto& e : s.environment.ld_library_path) {
        if (e.empty || e.exists || image_driver_volume(s, e.path)) continue;
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

// --- shell start-up files -----------------------------------------------------------------------

using snapshot::StartupLine;

/// "/home/dev/.bashrc:12": where a start-up line is, as evidence names it.
std::string where(const StartupLine& l) { return l.file + ":" + std::to_string(l.line); }

/// `sed -i 'SCRIPT' FILE` for one line of a start-up file; the system's files need root.
std::string sed_command(const StartupLine& l, const std::string& script) {
    const bool users = l.file.starts_with("/home/");
    return (users ? "" : "sudo ") + std::string("sed -i ") + text::shell_quote(script) + " " + text::shell_quote(l.file);
}

std::string comment_out(const StartupLine& l) { return sed_command(l, std::to_string(l.line) + "s/^/# /"); }

/// A value this rule may write back into a start-up file unquoted (and into sed's `c` text, where
/// a backslash would be an escape): folders, `$VAR` and `${…}` references only.
bool writable_value(std::string_view v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./:+-@%,~${}").find(c) != std::string_view::npos;
    });
}

std::vector<Finding> rc_overwrites_ld_library_path(const Snapshot& s, const kb::Kb&) {
    std::vector<Finding> out;
    for (const auto& l : s.environment.startup_lines) {
        // /etc/environment is read by pam_env before anything else sets the variable, and it
        // expands no ${…}: there is nothing to wipe and no form to rewrite it in.
        if (l.name != "LD_LIBRARY_PATH" || l.keeps_old || l.value.empty() || l.file == "/etc/environment") continue;
        if (!l.missing_toolkits.empty()) continue;  // shell-rc-names-missing-toolkit says more
        std::string value = l.value;
        while (value.ends_with(':')) value.pop_back();
        const std::string line = "export LD_LIBRARY_PATH=" + value + "${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}";
        out.push_back(finding(fmt::format("{} sets LD_LIBRARY_PATH to {}, wiping what was there before", where(l), l.value),
                              "Every shell that reads this file loses the LD_LIBRARY_PATH entries set before it: a conda "
                              "environment's, a module's, the system's. Programs then load another libcudart or cuDNN than "
                              "the one they were built with, or none (\"cannot open shared object file\").",
                              writable_value(value)
                                  ? "# keep the old entries after yours:\n" + sed_command(l, std::to_string(l.line) + "c " + line)
                                  : "# in " + where(l) + ", write it as:\n# " + line,
                              {{where(l), l.text}}));
    }
    return out;
}

std::vector<Finding> rc_appends_cuda_path(const Snapshot& s, const kb::Kb&) {
    std::vector<Finding> out;
    for (const auto& l : s.environment.startup_lines) {
        if (l.name != "PATH" || l.nvcc_before.empty() || !l.missing_toolkits.empty()) continue;
        // The same entries with the toolkit's bin folder first.
        std::vector<std::string> rest;
        bool only_old = true;
        for (const auto& e : formats::path_entries(l.value, "PATH")) {
            if (!e.old_value && e.dir == l.appended_dir) continue;
            rest.push_back(e.old_value ? "${PATH}" : e.dir);
            only_old = only_old && e.old_value;
        }
        std::string value = l.appended_dir;
        if (only_old && rest.size() == 1) {
            value += "${PATH:+:${PATH}}";
        } else {
            for (const auto& r : rest) value += ":" + r;
        }
        const std::string line = "export PATH=" + value;
        out.push_back(finding(fmt::format("{} appends {} to PATH, after {}", where(l), l.appended_dir, l.nvcc_before),
                              fmt::format("The shell takes the first nvcc on PATH: {} answers `nvcc`, not the toolkit this line "
                                          "adds, so builds use another CUDA than the one installed for them.",
                                          l.nvcc_before),
                              writable_value(value) ? "# put the toolkit first:\n" + sed_command(l, std::to_string(l.line) + "c " + line)
                                                    : "# in " + where(l) + ", write it as:\n# " + line,
                              {{where(l), l.text}, {l.nvcc_before, "found first on that PATH"}}));
    }
    return out;
}

std::vector<Finding> launch_blocking_on(const Snapshot& s, const kb::Kb&) {
    std::vector<Evidence> ev;
    std::string fix;
    for (const auto& l : s.environment.startup_lines) {
        if (l.name != "CUDA_LAUNCH_BLOCKING" || l.value != "1") continue;
        ev.push_back({where(l), l.text});
        fix += comment_out(l) + "\n";
    }
    if (s.environment.cuda_launch_blocking == "1") {
        ev.push_back({"env CUDA_LAUNCH_BLOCKING", "1"});
        fix += "unset CUDA_LAUNCH_BLOCKING\n";
    }
    if (ev.empty()) return {};
    fix.pop_back();
    return {finding("CUDA_LAUNCH_BLOCKING=1 is left on: every kernel launch waits for the GPU",
                    "A debugging switch: each launch becomes synchronous, so the CPU cannot queue work ahead and "
                    "training or inference runs several times slower. Set it for one run when an error needs its "
                    "real line (CUDA_LAUNCH_BLOCKING=1 python train.py), not in a start-up file.",
                    fix, ev)};
}

std::vector<Finding> rc_names_missing_toolkit(const Snapshot& s, const kb::Kb&) {
    std::vector<Finding> out;
    for (const auto& l : s.environment.startup_lines) {
        if (l.missing_toolkits.empty()) continue;
        std::string list;
        for (const auto& t : l.missing_toolkits) list += (list.empty() ? "" : ", ") + t;
        out.push_back(finding(fmt::format("{} names {}, which is not installed", where(l), list),
                              fmt::format("A toolkit that was removed (or a version typo): {} points at nothing, so the nvcc, "
                                          "libraries or CUDA_HOME meant to come from there are found somewhere else, or not at all.",
                                          l.name),
                              "# the line does nothing useful any more; comment it out:\n" + comment_out(l),
                              {{where(l), l.text}, {l.missing_toolkits.front(), "does not exist"}}));
    }
    return out;
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
        {"shell-rc-overwrites-ld-library-path", Layer::environment, Severity::warning,
         "a shell start-up line sets LD_LIBRARY_PATH without keeping its old value",
         "Reads ~/.bashrc, ~/.profile, ~/.zshrc, /etc/profile.d/* …; the fix rewrites the line in the ${LD_LIBRARY_PATH:+:…} form.",
         rc_overwrites_ld_library_path},
        {"shell-rc-appends-cuda-path", Layer::environment, Severity::warning,
         "a shell start-up line appends a toolkit's bin after PATH, where another nvcc wins",
         "Fires only when a folder before it on that PATH really holds another nvcc (Ubuntu's /usr/bin/nvcc); the fix prepends.",
         rc_appends_cuda_path},
        {"cuda-launch-blocking-left-on", Layer::environment, Severity::warning,
         "CUDA_LAUNCH_BLOCKING=1 set in a start-up file or the environment",
         "Every kernel launch synchronous; the fix comments the line out and unsets the variable.", launch_blocking_on},
        {"shell-rc-names-missing-toolkit", Layer::environment, Severity::warning,
         "a shell start-up line names a /usr/local/cuda-X.Y folder that does not exist",
         "A removed toolkit still on PATH, LD_LIBRARY_PATH or CUDA_HOME; the fix comments the line out.", rc_names_missing_toolkit},
    };
}

}  // namespace cudoctor::rules::detail
