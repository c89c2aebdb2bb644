#include "toolkits/switch_plan.hpp"

#include <algorithm>

#include "common/text.hpp"
#include "common/version.hpp"
#include "toolkits/alternatives.hpp"

namespace cudoctor::toolkits {
namespace {

/// True when a loader configuration file names /usr/local/cuda (so the cache follows the link).
bool loader_follows_link(const host::Host& host) {
    std::vector<std::string> files = {"/etc/ld.so.conf"};
    for (const auto& f : host.glob("/etc/ld.so.conf.d", "*.conf")) files.push_back(f);
    for (const auto& f : files) {
        auto data = host.read_file(f, 1u << 20);
        if (!data) continue;
        for (auto line : text::lines(*data))
            if (names_folder(line, "/usr/local/cuda")) return true;
    }
    return false;
}

void add_warnings(const host::Host& host, const Inventory& inv, const Entry& target, plan::Plan& p) {
    const Entry* old = nullptr;
    for (const auto& e : inv.toolkits)
        if (e.toolkit.is_default) old = &e;
    if (old && old != &target) {
        if (!old->cudnn.empty() && target.cudnn.empty())
            p.warnings.push_back("cuDNN " + old->cudnn.front() + " was copied into " + old->toolkit.path + " only: after the switch " +
                                 "/usr/local/cuda has no cuDNN (copy it into " + target.toolkit.path +
                                 " too, or install cuDNN from packages)");
        if (!old->toolkit.cudart_soname.empty() && !target.toolkit.cudart_soname.empty() &&
            old->toolkit.cudart_soname != target.toolkit.cudart_soname)
            p.warnings.push_back("programs and Python extensions built against " + old->toolkit.path + " need " +
                                 old->toolkit.cudart_soname + "; " + target.toolkit.path + " has " + target.toolkit.cudart_soname +
                                 ": rebuild them (pip install --no-cache-dir --force-reinstall for source builds)");
        else
            p.notes.push_back("extensions built with " + label(*old) + " load " + target.toolkit.cudart_soname + " from " + label(target) +
                              " (same major); one built against a newer minor than the new default may miss symbols: rebuild it");
    }
    for (const auto& e : inv.toolkits) {
        if (e.toolkit.first_on_path && &e != &target)
            p.warnings.push_back(
                "this shell's PATH finds " + e.toolkit.nvcc_path + " first: PATH wins over /usr/local/cuda; run `cudoctor use " +
                (target.release.empty() ? target.toolkit.version : target.release) + "` here or fix the shell start-up file");
    }
    (void)host;
    p.notes.emplace_back("`sudo nvcc` uses sudo's secure_path, not your PATH: call /usr/local/cuda/bin/nvcc by its full path under sudo");
}

}  // namespace

plan::Step ldconfig_step(std::string why) {
    auto s = plan::run_command({"/sbin/ldconfig"}, std::move(why), "/sbin/ldconfig (after undoing the steps before)", true, {"-r", "{root}"});
    return s;
}

namespace {

/// The check that the switch took (nvcc through the new link; the whole chain where a GPU can run
/// it) and the command that goes back to the default of now.
void add_afterwards(const host::Host& host, const Inventory& inv, const Entry& target, bool gpu_usable, plan::Plan& p) {
    const auto& tk = target.toolkit;
    const auto release = Version::parse(target.release.empty() ? tk.version : target.release);
    const std::string root = host.is_rooted() ? " --root " + text::shell_quote(host.root()) : "";
    if (host.is_rooted()) {
        // An image's nvcc is never run, not even by the user following this plan: its link is read.
        p.afterwards.push_back("cudoctor list" + root + "   # " + tk.path + " is the default");
    } else {
        if (tk.has_nvcc && release)
            p.afterwards.emplace_back("/usr/local/cuda/bin/nvcc --version | grep 'release " + release->truncated(2).str() + "'");
        if (gpu_usable) p.afterwards.emplace_back("cudoctor verify --level 2");
    }
    for (const auto& e : inv.toolkits)
        if (e.toolkit.is_default && &e != &target)
            p.rollback = std::string(p.touches_system() && !host.is_rooted() ? "sudo " : "") + "cudoctor switch " +
                         text::shell_quote(e.toolkit.path) + root + " --apply";
}

}  // namespace

Expected<plan::Plan> plan_switch(const host::Host& host, const Inventory& inv, const Entry& target, bool gpu_usable) {
    const auto& tk = target.toolkit;
    if (tk.install_method == snapshot::InstallMethod::pip || tk.install_method == snapshot::InstallMethod::conda)
        return fail(Errc::usage, label(target) + " is a " + std::string(snapshot::to_string(tk.install_method)) +
                                     " install: it is never the machine default; `cudoctor use` switches a shell to it");
    plan::Plan p;
    p.title = "make CUDA " + label(target) + " the machine's default (/usr/local/cuda)";
    auto st = host.lstat("/usr/local/cuda");
    if (st && st->type == host::FileType::directory)
        return fail(Errc::usage, "/usr/local/cuda is a folder, not a link (a toolkit was installed into it): cudoctor will not replace it");
    if (tk.is_default) {
        p.notes.push_back("/usr/local/cuda already points at " + tk.path);
        return p;
    }
    const auto raw = host.read_link("/usr/local/cuda");
    bool done = false;
    if (raw && raw->starts_with("/etc/alternatives/")) {
        const std::string name = host::basename(*raw);
        for (auto& alt : read_cuda_alternatives(host)) {
            if (alt.name != name) continue;
            auto choice = std::find_if(alt.choices.begin(), alt.choices.end(), [&](const AltChoice& c) {
                auto real = host.resolve(c.path);
                return real && *real == tk.path;
            });
            if (choice == alt.choices.end()) {
                p.warnings.push_back(tk.path + " is not registered with update-alternatives (" + name +
                                     "): /usr/local/cuda will point at it "
                                     "directly; `update-alternatives --install /usr/local/cuda " +
                                     name + " " + tk.path + " <priority>` registers it");
                break;
            }
            const std::size_t link_step = p.steps.size();
            p.steps.push_back(plan::make_symlink(host, *raw, choice->path,
                                                 *raw + " (update-alternatives' link behind /usr/local/cuda) points at " + choice->path +
                                                     (alt.current.empty() ? "" : " instead of " + alt.current)));
            const std::string admin = "/var/lib/dpkg/alternatives/" + name;
            if (alt.status != "manual") {
                auto before = host.read_file(admin, 1u << 20);
                if (before) {
                    Alternative edited = alt;
                    edited.status = "manual";
                    p.steps.push_back(
                        plan::edit_file(admin, *before, format_alternative(edited),
                                        "update-alternatives records the choice as manual (as `update-alternatives --set` does)"));
                }
            }
            p.steps[link_step].shell += "   # = update-alternatives --set " + name + " " + choice->path;
            done = true;
            break;
        }
    }
    if (!done) {
        std::string was = raw ? " instead of " + *raw : " (it does not exist now)";
        p.steps.push_back(plan::make_symlink(host, "/usr/local/cuda", tk.path, "/usr/local/cuda points at " + tk.path + was));
    }
    if (loader_follows_link(host))
        p.steps.push_back(ldconfig_step("refresh the loader cache: /etc/ld.so.conf.d names /usr/local/cuda, whose libraries just changed"));
    add_warnings(host, inv, target, p);
    add_afterwards(host, inv, target, gpu_usable, p);
    return p;
}

}  // namespace cudoctor::toolkits
