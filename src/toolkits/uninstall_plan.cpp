#include "toolkits/uninstall_plan.hpp"

#include <algorithm>
#include <set>

#include "common/text.hpp"
#include "common/version.hpp"
#include "formats/conda_meta.hpp"
#include "report/style.hpp"
#include "toolkits/alternatives.hpp"
#include "toolkits/dpkg_owner.hpp"
#include "toolkits/references.hpp"
#include "toolkits/switch_plan.hpp"

namespace cudoctor::toolkits {
namespace {

bool is_folder_install(const Entry& e) {
    return e.toolkit.install_method != snapshot::InstallMethod::pip && e.toolkit.install_method != snapshot::InstallMethod::conda;
}

bool token_end(char c) { return c == ':' || c == '"' || c == '\'' || c == ' ' || c == '\t' || c == ';' || c == '}'; }

/// The newest other toolkit with a folder of its own, to keep /usr/local/cuda pointing somewhere.
const Entry* successor(const Inventory& inv, const Entry& target) {
    const Entry* best = nullptr;
    for (const auto& e : inv.toolkits)
        if (&e != &target && is_folder_install(e) && e.toolkit.path.starts_with("/usr/local/cuda-")) best = &e;  // sorted by version
    return best;
}

/// True when the line names some other toolkit folder than `dir` (so it must be edited, not dropped).
bool names_another(std::string_view line, const Inventory& inv, const Entry& target) {
    for (const auto& e : inv.toolkits)
        if (&e != &target && names_folder(line, e.toolkit.path)) return true;
    return false;
}

void plan_default_link(const host::Host& host, const Inventory& inv, const Entry& target, plan::Plan& p) {
    auto raw = host.read_link("/usr/local/cuda");
    if (!raw || raw->starts_with("/etc/alternatives/") || !target.toolkit.is_default) return;  // alternatives: below
    if (const Entry* next = successor(inv, target)) {
        p.steps.push_back(plan::make_symlink(host, "/usr/local/cuda", next->toolkit.path,
                                             "/usr/local/cuda points at " + label(*next) + " instead of the toolkit being removed"));
        p.warnings.push_back("/usr/local/cuda will point at " + label(*next) + " (the newest toolkit left); `cudoctor switch` picks another");
    } else {
        p.steps.push_back(plan::remove_tree("/usr/local/cuda", "remove the /usr/local/cuda link (no toolkit is left for it)",
                                            "ln -s " + text::shell_quote(*raw) + " /usr/local/cuda"));
    }
}

void plan_alternatives(const host::Host& host, const Entry& target, plan::Plan& p) {
    for (auto& alt : read_cuda_alternatives(host)) {
        auto it = std::find_if(alt.choices.begin(), alt.choices.end(), [&](const AltChoice& c) {
            auto real = host.resolve(c.path);
            return c.path == target.toolkit.path || (real && *real == target.toolkit.path);
        });
        if (it == alt.choices.end()) continue;
        const std::string admin = "/var/lib/dpkg/alternatives/" + alt.name;
        const std::string link = "/etc/alternatives/" + alt.name;
        const std::string reinstall =
            "update-alternatives --install " + alt.link + " " + alt.name + " " + it->path + " " + std::to_string(it->priority);
        auto before = host.read_file(admin, 1u << 20);
        if (!before) continue;
        Alternative edited = alt;
        edited.choices.erase(edited.choices.begin() + (it - alt.choices.begin()));
        if (edited.choices.empty()) {
            p.steps.push_back(
                plan::remove_tree(admin, "remove update-alternatives' group " + alt.name + " (its only choice is this toolkit)", reinstall));
            if (host.lstat(link)) p.steps.push_back(plan::remove_tree(link, "remove " + link, "ln -s " + it->path + " " + link));
            if (auto t = host.read_link(alt.link); t && *t == link)
                p.steps.push_back(
                    plan::remove_tree(alt.link, "remove " + alt.link + " (it led to this toolkit only)", "ln -s " + link + " " + alt.link));
            continue;
        }
        if (alt.current == it->path || alt.current.empty()) {
            const AltChoice* next = edited.best();
            edited.status = "auto";
            p.steps.push_back(
                plan::make_symlink(host, link, next->path,
                                   link + " (behind " + alt.link + ") points at " + next->path + ", the highest-priority choice left"));
        }
        p.steps.push_back(plan::edit_file(admin, *before, format_alternative(edited),
                                          "update-alternatives forgets " + it->path + " as a choice for " + alt.name));
    }
}

/// ld.so.conf.d, shell start-up files and modulefiles that name the toolkit.
bool plan_references(const host::Host& host, const Inventory& inv, const Entry& target, plan::Plan& p) {
    bool loader_changed = false;
    const ReferenceIndex index(host);
    for (const auto& f : index.files()) {
        if (f.is_link || f.kind == RefKind::alternatives) continue;
        bool any = false, all = true;
        std::string after;
        for (auto line : text::lines(f.content)) {
            auto t = text::trim(line);
            const bool names = names_folder(line, target.toolkit.path);
            any = any || names;
            if (!t.empty() && !t.starts_with('#') && !names) all = false;
            if (!names) after += std::string(line) + "\n";
            else if (f.kind == RefKind::shell_rc && names_another(line, inv, target))
                after += strip_folder(line, target.toolkit.path) + "\n";
        }
        if (!any) continue;
        if (f.kind == RefKind::ld_so_conf) loader_changed = true;
        if (all && f.kind != RefKind::shell_rc) {
            std::string restore = "printf '%s' " + text::shell_quote(f.content) + " > " + text::shell_quote(f.path);
            p.steps.push_back(
                plan::remove_tree(f.path, "remove " + f.path + " (" + to_string(f.kind) + "; it names only this toolkit)", restore));
        } else {
            p.steps.push_back(plan::edit_file(f.path, f.content, after,
                                              "take " + target.toolkit.path + " out of " + f.path + " (" + to_string(f.kind) + ")"));
        }
    }
    return loader_changed;
}

void plan_removal(const host::Host& host, const snapshot::Snapshot& snap, const Entry& target, plan::Plan& p) {
    const auto& tk = target.toolkit;
    const std::string uninstaller = host::join(tk.path, "bin/cuda-uninstaller");
    if (tk.install_method == snapshot::InstallMethod::runfile && host.is_executable_file(uninstaller)) {
        // A machine image is inert: its programs are never run. The folder's removal below takes
        // what the uninstaller would have removed inside it.
        if (host.is_rooted()) p.notes.push_back(uninstaller + " " + std::string(host::kNotRunInImage) + " (the folder is removed instead)");
        else
            p.steps.push_back(plan::run_command({uninstaller, "--silent"}, "the runfile's own uninstaller removes the files it installed",
                                                "reinstall: sh cuda_" + (target.release.empty() ? tk.version : target.release) +
                                                    "_<driver>_linux.run --silent --toolkit"));
    }
    bool keep_folder = false;
    if (tk.install_method == snapshot::InstallMethod::deb) {
        auto own = dpkg_packages_of(host, target);
        if (!own.kept_inside.empty()) {
            keep_folder = true;
            std::string names;
            for (const auto& k : own.kept_inside) names += (names.empty() ? "" : ", ") + k;
            p.notes.push_back(tk.path + " stays: " + names +
                              " keep driver files in it (purge them yourself only if no container or "
                              "application needs that forward-compatibility driver)");
        }
        for (const auto& k : own.kept) p.notes.push_back("kept: " + k);
        if (!own.owned.empty()) {
            std::vector<std::string> argv{"/usr/bin/dpkg", "--purge"};
            std::string undo = "apt-get install";
            for (const auto& o : own.owned) {
                argv.push_back(o.name);
                undo += " " + o.name + "=" + o.version;
            }
            // On an image, dpkg would run the packages' maintainer scripts in a chroot of it, and
            // its triggers (ldconfig) with the image's programs: the image's code, as root.
            auto step = plan::run_command(argv,
                                          "dpkg purges the " + std::to_string(own.owned.size()) + " packages of CUDA " +
                                              Version::parse(tk.version)->truncated(2).str() + " (exact names; nothing else)",
                                          undo, true, {"--root={root}", "--force-not-root", "--no-triggers"});
            if (host.is_rooted()) {
                std::vector<std::string> scripts;
                for (const auto& o : own.owned)
                    for (const char* kind : {"prerm", "postrm"})
                        for (const std::string& name : {o.name + "." + kind, o.name + ":*." + kind})
                            for (const auto& f : host.glob("/var/lib/dpkg/info", name)) scripts.push_back(f);
                if (!scripts.empty())
                    step.runs_image_content = "would run maintainer scripts of the image (" + report::join(scripts, ", ") + ")";
            }
            p.steps.push_back(std::move(step));
        }
    }
    if (tk.install_method == snapshot::InstallMethod::pip) {
        // .../site-packages/nvidia/cu13 or .../site-packages/nvidia/cuda_runtime
        const std::string site = host::dirname(host::dirname(tk.path));
        std::string python = "python3";
        for (const auto& py : snap.pythons)
            if (py.site == site && !py.interpreter.empty()) python = py.interpreter;
        std::vector<std::string> argv{python, "-m", "pip", "uninstall", "-y"};
        std::string undo = python + " -m pip install";
        const auto major = std::to_string(Version::parse(tk.version) ? Version::parse(tk.version)->major() : 0);
        for (const auto& d : host.glob(site, "nvidia_cuda_*.dist-info")) {
            std::string n = host::basename(d);
            n.resize(n.size() - 10);
            const auto dash = n.find('-');
            if (dash == std::string::npos) continue;
            std::string dist = n.substr(0, dash), ver = n.substr(dash + 1);
            if (!dist.ends_with("_cu" + major) && !ver.starts_with(major + ".")) continue;
            std::replace(dist.begin(), dist.end(), '_', '-');
            argv.push_back(dist);
            undo += " " + dist + "==" + ver;
        }
        if (argv.size() > 5)
            p.steps.push_back(plan::run_command(argv, "pip removes the CUDA wheels of " + site, undo, !site.starts_with("/home/")));
    }
    if (tk.install_method == snapshot::InstallMethod::conda) {
        std::vector<std::string> pkgs;
        std::string undo;
        std::vector<formats::CondaPackage> others;
        for (const auto& f : host.glob(host::join(tk.path, "conda-meta"), "*.json")) {
            auto data = host.read_file(f, 16u << 20);
            if (!data) continue;
            auto pkg = formats::parse_conda_meta(*data);
            if (!pkg || pkg->name.empty()) continue;
            if (!pkg->name.starts_with("cuda-") && pkg->name != "cudatoolkit") {
                others.push_back(std::move(*pkg));
                continue;
            }
            pkgs.push_back(pkg->name);
            undo += " " + pkg->name + "=" + pkg->version;
        }
        // `conda remove` takes every package that depends on what it removes along, and what
        // depends on those: torch built against cudatoolkit goes too. Say so before it happens.
        std::set<std::string> removed(pkgs.begin(), pkgs.end());
        std::vector<std::string> dependents;
        for (bool grew = true; grew;) {
            grew = false;
            for (const auto& o : others) {
                if (removed.contains(o.name)) continue;
                for (const auto& d : o.depends)
                    if (removed.contains(d.substr(0, d.find(' ')))) {
                        removed.insert(o.name);
                        dependents.push_back(o.name + " " + o.version);
                        grew = true;
                        break;
                    }
            }
        }
        if (!pkgs.empty() && !dependents.empty())
            p.warnings.push_back("conda also removes what depends on " + report::join(pkgs, ", ") + " in " + tk.path + ": " +
                                 report::join(dependents, ", ") + " (the undo line does not bring them back)");
        std::string conda = host::join(tk.path, "bin/conda");
        if (!host.is_executable_file(conda)) conda = host::join(host::dirname(host::dirname(tk.path)), "bin/conda");
        std::vector<std::string> argv{conda, "remove", "-y", "-p", tk.path};
        argv.insert(argv.end(), pkgs.begin(), pkgs.end());
        if (!pkgs.empty())
            p.steps.push_back(plan::run_command(argv, "conda removes the CUDA packages of the environment " + tk.path,
                                                conda + " install -y -p " + tk.path + undo, false));
    }
    if (is_folder_install(target) && !keep_folder)
        p.steps.push_back(plan::remove_tree(tk.path,
                                            "remove what is left of " + tk.path + " (files no installer owns, such as a cuDNN copied in)",
                                            "reinstall CUDA " + (target.release.empty() ? tk.version : target.release) +
                                                "; files copied in by hand must come from a backup"));
}

void add_notes(const snapshot::Snapshot& snap, const Inventory& inv, const Entry& target, plan::Plan& p) {
    const auto& dir = target.toolkit.path;
    for (const auto& e : snap.environment.ld_library_path)
        if (names_folder(e.path, dir) || e.real_path.starts_with(dir + "/"))
            p.notes.push_back("this shell's LD_LIBRARY_PATH still names " + e.path +
                              ": open a new shell, or run `cudoctor use` with another version");
    for (const auto& e : snap.environment.path)
        if (names_folder(e, dir))
            p.notes.push_back("this shell's PATH still names " + e + ": open a new shell, or run `cudoctor use` with another version");
    if (snap.environment.cuda_home && names_folder(*snap.environment.cuda_home, dir))
        p.notes.push_back("this shell's CUDA_HOME is " + *snap.environment.cuda_home + ": unset it or run `cudoctor use`");
    if (!target.cudnn.empty() && target.toolkit.install_method != snapshot::InstallMethod::conda)
        p.warnings.push_back("cuDNN " + target.cudnn.front() + " lives inside " + dir + " and goes with it");
    for (const auto& e : inv.toolkits)
        if (&e != &target && !is_folder_install(e))
            p.notes.push_back("the " + std::string(snapshot::to_string(e.toolkit.install_method)) + " copy of CUDA " + e.toolkit.version +
                              " in " + e.toolkit.path + " is separate and stays");
    if (target.toolkit.install_method == snapshot::InstallMethod::conda)
        p.notes.emplace_back("only the conda environment " + dir + " changes: other environments and pip wheels keep their own CUDA");
    else if (target.toolkit.install_method == snapshot::InstallMethod::pip)
        p.notes.emplace_back("only the CUDA wheels of this site folder go: conda environments and other pythons keep their own CUDA");
    else
        p.notes.emplace_back(
            "conda environments and pip wheels (torch's nvidia-* packages) carry their own CUDA: this plan does not touch them");
}

}  // namespace

std::string strip_folder(std::string_view line, std::string_view dir) {
    std::string out(line);
    for (;;) {
        std::size_t at = std::string::npos;
        for (std::size_t pos = out.find(dir); pos != std::string::npos; pos = out.find(dir, pos + 1)) {
            if (names_folder(std::string_view(out).substr(pos), dir) && (pos == 0 || out[pos - 1] != '/')) {
                at = pos;
                break;
            }
        }
        if (at == std::string::npos) return out;
        std::size_t end = at;
        while (end < out.size() && !token_end(out[end])) ++end;
        if (end < out.size() && out[end] == ':') ++end;
        else if (at > 0 && out[at - 1] == ':') --at;
        else if (end < out.size() && out[end] == ' ') ++end;
        else if (at > 0 && out[at - 1] == ' ') --at;
        out.erase(at, end - at);
    }
}

Expected<plan::Plan> plan_uninstall(const host::Host& host, const snapshot::Snapshot& snap, const Inventory& inv, const Entry& target) {
    plan::Plan p;
    p.title = "remove CUDA " + label(target) + ", installed by " + std::string(snapshot::to_string(target.toolkit.install_method));
    if (target.toolkit.install_method == snapshot::InstallMethod::unknown && !target.toolkit.path.starts_with("/usr/local/cuda-") &&
        !target.toolkit.path.starts_with("/opt/"))
        return fail(Errc::unsupported, "cudoctor does not know what installed " + target.toolkit.path + ": remove it with the tool that did");
    plan_default_link(host, inv, target, p);
    plan_alternatives(host, target, p);
    const bool loader_changed = plan_references(host, inv, target, p);
    plan_removal(host, snap, target, p);
    if (loader_changed || is_folder_install(target))
        p.steps.push_back(ldconfig_step("refresh the loader cache without this toolkit's libraries"));
    add_notes(snap, inv, target, p);
    return p;
}

}  // namespace cudoctor::toolkits
