// apt rules: NVIDIA's CUDA repository for another release (or the native one under WSL2), a
// local CUDA repository left behind by an old local-deb install, and holds or pins that keep the
// driver on a branch too old for what is installed.
#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "common/text.hpp"
#include "formats/apt_sources.hpp"
#include "kb/toolkit_release.hpp"
#include "recipe/install.hpp"
#include "rules/ids.hpp"
#include "rules/rule_util.hpp"

namespace cudoctor::rules::detail {
// Named, not anonymous: the unity build puts several rule files in one translation unit.
namespace apt_checks {

using snapshot::AptSource;
using snapshot::Evidence;
using snapshot::Finding;
using snapshot::Layer;
using snapshot::Severity;
using snapshot::Snapshot;

/// NVIDIA's CUDA repository in a source's URI ("ubuntu2204", "wsl-ubuntu"); "" for any other URI.
std::string nvidia_repo_of(const std::string& uri) { return formats::nvidia_cuda_repo_of(uri); }

/// The CUDA release of a local repository NVIDIA's local .deb installs
/// (file:///var/cuda-repo-ubuntu2204-12-4-local → {"cuda-repo-ubuntu2204-12-4-local", "12.4"}).
using LocalRepo = formats::LocalCudaRepo;
std::optional<LocalRepo> local_repo_of(const std::string& uri) { return formats::local_cuda_repo_of(uri); }

bool one_line_format(const std::string& file) { return !file.ends_with(".sources"); }

/// The lines that take the sources `bad` out of apt: a sources.list.d file holding nothing else
/// is removed; a line of a one-line file among others is commented out; a deb822 stanza among
/// others is named (apt has no one-line command for it).
std::vector<std::string> disable_commands(const Snapshot& s, const std::vector<const AptSource*>& bad) {
    std::vector<std::string> out;
    std::set<std::string> done;
    for (const auto* b : bad) {
        if (!done.insert(b->file).second) continue;
        bool only_bad = true;
        for (const auto& other : s.platform.apt_sources)
            if (other.file == b->file && std::find(bad.begin(), bad.end(), &other) == bad.end()) only_bad = false;
        if (only_bad && b->file.starts_with("/etc/apt/sources.list.d/")) {
            out.push_back("sudo rm " + b->file);
            continue;
        }
        for (const auto* x : bad) {
            if (x->file != b->file) continue;
            if (one_line_format(x->file)) out.push_back(fmt::format("sudo sed -i '{}s/^/# /' {}", x->line, x->file));
            else out.push_back(fmt::format("# {}: add \"Enabled: no\" to the stanza at line {}", x->file, x->line));
        }
    }
    return out;
}

std::vector<Finding> cuda_repo_wrong_distro(const Snapshot& s, const kb::Kb& kb) {
    const auto d = recipe::distro_of(s);
    const std::string want = recipe::cuda_repo_of(d, kb);
    if (want.empty()) return {};  // a release NVIDIA (or the KB) has no repository for: nothing to compare with
    std::vector<const AptSource*> bad;
    bool right_present = false;
    std::vector<Evidence> ev = {
        {"/etc/os-release", s.platform.os_pretty.empty() ? s.platform.os_id + " " + s.platform.os_version : s.platform.os_pretty}};
    if (s.platform.wsl) ev.push_back({"/proc/sys/kernel/osrelease", "WSL2 kernel " + s.platform.kernel});
    for (const auto& src : s.platform.apt_sources) {
        if (!src.enabled) continue;
        const auto repo = nvidia_repo_of(src.uri);
        if (repo.empty()) continue;
        if (repo == want) {
            right_present = true;
            continue;
        }
        bad.push_back(&src);
        ev.push_back({fmt::format("{}:{}", src.file, src.line), src.uri});
    }
    if (bad.empty()) return {};
    ev.push_back({"kb:distro_releases.tsv", fmt::format("{} uses NVIDIA's {} repository", d.label(), want)});
    std::set<std::string> names;
    for (const auto* b : bad) names.insert(nvidia_repo_of(b->uri));
    std::string repos;
    for (const auto& r : names) repos += (repos.empty() ? "" : ", ") + r;
    auto commands = disable_commands(s, bad);
    if (right_present) commands.emplace_back("sudo apt-get update");
    else
        for (auto& line : recipe::keyring_commands(d, want, kb)) commands.push_back(std::move(line));
    const std::string why =
        s.platform.wsl ? "Under WSL2 the GPU is served by the Windows driver; NVIDIA's native Ubuntu repositories carry Linux driver "
                         "packages (cuda, cuda-drivers) that install a Linux libcuda over WSL's and break CUDA in WSL2. WSL2 has its own "
                         "repository, wsl-ubuntu, with the toolkit only."
                       : fmt::format(
                             "NVIDIA builds its CUDA packages per distribution release. Packages from another release's repository "
                             "link against other library versions, and apt mixes them with this release's: broken dependencies, "
                             "or a driver that does not build for this kernel. {} uses {}.",
                             d.label(), want);
    return {finding(fmt::format("NVIDIA's CUDA repository for {} is configured on {} (it should be {})", repos, d.label(), want), why,
                    recipe::as_script(commands), ev)};
}

std::vector<Finding> local_repo_stale(const Snapshot& s, const kb::Kb&) {
    std::set<std::string> installed;  // the major.minor of every toolkit on the machine
    for (const auto& tk : s.toolkits) {
        if (!is_system_toolkit(tk)) continue;
        if (auto v = Version::parse(tk.version)) installed.insert(v->truncated(2).str());
    }
    std::vector<Finding> out;
    for (const auto& src : s.platform.apt_sources) {
        if (!src.enabled) continue;
        const auto local = local_repo_of(src.uri);
        if (!local) continue;
        const std::string dir = "/var/" + local->name;
        std::vector<Evidence> ev = {{fmt::format("{}:{}", src.file, src.line), src.uri}};
        std::string problem;
        if (src.local_dir_missing) {
            problem = "its folder is gone";
            ev.push_back({dir, "absent: apt update fails on this source"});
        } else if (src.signed_by_missing) {
            problem = "its keyring is missing";
            ev.push_back({src.signed_by, "absent: apt update says NO_PUBKEY / is not signed"});
        } else if (!installed.empty() && !installed.count(local->release)) {
            problem = "no CUDA " + local->release + " is installed";
            std::string list;
            for (const auto& v : installed) list += (list.empty() ? "" : ", ") + v;
            ev.push_back({"toolkits", "installed: CUDA " + list});
        } else {
            continue;
        }
        std::vector<std::string> commands = disable_commands(s, {&src});
        commands.emplace_back("sudo apt-get update");
        commands.push_back("# the package that made it, if still installed (dpkg -l 'cuda-repo-*-local'): sudo apt-get purge " + local->name);
        out.push_back(finding(fmt::format("A local CUDA {} repository from an old local .deb install is still an apt source: {}",
                                          local->release, problem),
                              "NVIDIA's local .deb (cuda-repo-<distro>-X-Y-local) adds a file: repository in /var and its own "
                              "keyring. Once the folder or keyring is gone, every apt update fails on it (NO_PUBKEY, \"does not "
                              "have a Release file\"); while it stays, apt can pull that old release's packages into new "
                              "installs.",
                              recipe::as_script(commands), ev));
    }
    return out;
}

// --- holds and pins -------------------------------------------------------------------------------

/// Driver packages whose names carry the branch right after the prefix (nvidia-driver-535,
/// linux-modules-nvidia-535-generic), or, for the branchless ones, in their version.
constexpr std::array<std::string_view, 19> kDriverPackagePrefixes = {
    "nvidia-driver-",        "libnvidia-compute-",       "libnvidia-gl-",
    "libnvidia-common-",     "libnvidia-extra-",         "libnvidia-decode-",
    "libnvidia-encode-",     "libnvidia-fbc1-",          "libnvidia-cfg1-",
    "nvidia-dkms-",          "nvidia-kernel-common-",    "nvidia-kernel-source-",
    "nvidia-utils-",         "nvidia-compute-utils-",    "linux-modules-nvidia-",
    "linux-objects-nvidia-", "linux-signatures-nvidia-", "xserver-xorg-video-nvidia-",
    "cuda-drivers-"};
/// Meta packages that follow the newest branch of their repository: a version pin on them is a
/// branch pin.
constexpr std::array<std::string_view, 5> kBranchlessDriverPackages = {"cuda-drivers", "nvidia-driver", "nvidia-open", "nvidia-kernel-dkms",
                                                                       "nvidia-kernel-open-dkms"};

/// The leading number of "535.183.01-1" or "535-server".
std::optional<int> leading_number(std::string_view s) {
    int v = 0;
    std::size_t i = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 6; ++i) v = v * 10 + (s[i] - '0');
    return i == 0 ? std::nullopt : std::optional(v);
}

/// The driver branch a held package keeps, or nullopt when it is no driver package.
std::optional<int> held_driver_branch(const snapshot::HeldPackage& p) {
    for (auto branchless : kBranchlessDriverPackages)
        if (p.name == branchless) return leading_number(p.version);
    for (auto prefix : kDriverPackagePrefixes)
        if (p.name.starts_with(prefix)) return leading_number(std::string_view(p.name).substr(prefix.size()));
    return std::nullopt;
}

/// The branch a pin holds the driver's meta packages to ("Pin: version 535.*", priority above
/// the repositories' 500), or nullopt when the pin is no such thing (NVIDIA's own
/// cuda-repository-pin-600 pins by release label: never).
std::optional<int> pinned_driver_branch(const snapshot::AptPin& pin) {
    if (!pin.priority || *pin.priority <= 500) return std::nullopt;
    std::string_view p = pin.pin;
    if (!p.starts_with("version ")) return std::nullopt;
    const auto branch = leading_number(text::trim(p.substr(8)));
    if (!branch) return std::nullopt;
    for (const auto word : text::fields(pin.package)) {
        if (word.starts_with('/')) continue;  // a /regex/: not read here
        const std::string pattern(word);
        for (auto name : kBranchlessDriverPackages)
            if (::fnmatch(pattern.c_str(), std::string(name).c_str(), 0) == 0) return branch;
    }
    return std::nullopt;
}

/// The driver this machine's toolkits and frameworks need, computed as driver-too-old-for-toolkit
/// and -framework do; nullopt when the driver is new enough for all of them.
std::optional<Version> driver_needed(const Snapshot& s, const kb::Kb& kb, const Version& dv) {
    std::optional<Version> need;
    auto raise = [&](const Version& v) {
        if (!need || *need < v) need = v;
    };
    for (const auto& tk : s.toolkits) {
        if (!is_system_toolkit(tk)) continue;
        if (auto min = kb::min_driver_for(kb, tk); min && dv < *min) raise(*min);
    }
    for (const auto& fw : s.frameworks) {
        if (!fw.cuda || fw.cuda->empty()) continue;
        auto cv = Version::parse(*fw.cuda);
        if (!cv) continue;
        if (auto min = kb.min_driver_for(*cv); min && dv < *min) raise(*min);
        if (auto floor = kb.minor_compat_floor(cv->major()); floor && dv < *floor) raise(*floor);
    }
    return need;
}

bool rule_fires(RuleId id, const Snapshot& s, const kb::Kb& kb) {
    const auto* r = find_rule(id);
    return r && !r->check(s, kb).empty();
}

std::vector<Finding> driver_pin_conflict(const Snapshot& s, const kb::Kb& kb) {
    const auto dv = driver_version(s);
    if (!dv || s.platform.wsl) return {};
    // Only where this run also says the driver is too old: otherwise a hold is the owner's choice.
    if (!rule_fires("driver-too-old-for-toolkit", s, kb) && !rule_fires("driver-too-old-for-framework", s, kb)) return {};
    const auto need = driver_needed(s, kb, *dv);
    if (!need) return {};
    std::vector<Evidence> ev = {{"driver", "Driver " + dv->str()}, {"needed", fmt::format("≥ {} (branch {})", need->str(), need->major())}};
    std::vector<std::string> held;
    for (const auto& p : s.platform.held_packages) {
        const auto branch = held_driver_branch(p);
        if (!branch || *branch >= need->major()) continue;
        held.push_back(p.name);
        ev.push_back({"/var/lib/dpkg/status", p.name + " " + p.version + ": hold"});
    }
    std::vector<const snapshot::AptPin*> pins;
    for (const auto& pin : s.platform.apt_pins) {
        const auto branch = pinned_driver_branch(pin);
        if (!branch || *branch >= need->major()) continue;
        pins.push_back(&pin);
        ev.push_back({fmt::format("{}:{}", pin.file, pin.line),
                      fmt::format("Package: {} / Pin: {} / Pin-Priority: {}", pin.package, pin.pin, *pin.priority)});
    }
    if (held.empty() && pins.empty()) return {};
    std::vector<std::string> commands;
    if (!held.empty()) {
        std::string names;
        for (const auto& n : held) names += " " + n;
        commands.push_back("sudo apt-mark unhold" + names);
    }
    std::set<std::string> files;
    for (const auto* pin : pins) {
        if (!files.insert(pin->file).second) continue;
        const bool alone = std::all_of(s.platform.apt_pins.begin(), s.platform.apt_pins.end(), [&](const auto& other) {
            return other.file != pin->file || std::find(pins.begin(), pins.end(), &other) != pins.end();
        });
        if (alone && pin->file.starts_with("/etc/apt/preferences.d/")) commands.push_back("sudo rm " + pin->file);
        else commands.push_back(fmt::format("# {}: delete the stanza at line {} (Package: {})", pin->file, pin->line, pin->package));
    }
    commands.emplace_back("# then upgrade the driver as driver-too-old-for-toolkit / -framework says");
    const std::string what = !held.empty() && !pins.empty() ? "held packages and an apt pin"
                             : !held.empty()                ? "held packages"
                                                            : "an apt pin";
    return {finding(fmt::format("The driver is kept on branch {} by {}, but this machine needs ≥ {}", dv->major(), what, need->str()),
                    "apt-mark hold (or a Pin-Priority above 500 on an old version) stops apt from moving the driver to a newer "
                    "branch: the upgrade the driver-too-old finding gives is refused (\"held packages were changed\", or the "
                    "old version stays the candidate). Lift the hold or pin first, then upgrade.",
                    recipe::as_script(commands), ev)};
}

}  // namespace apt_checks

std::vector<Rule> apt_rules() {
    return {
        {"apt-cuda-repo-wrong-distro", Layer::platform, snapshot::Severity::warning,
         "NVIDIA's CUDA apt repository is for another release (or the native one under WSL2)",
         "Reads the apt sources (/etc/apt/sources.list, sources.list.d/*.list and *.sources) for "
         "developer.download.nvidia.com/compute/cuda/repos/<repo>/ and compares <repo> with this release's (the KB's "
         "distro_releases.tsv; wsl-ubuntu under WSL2). Fixed by removing that source and installing the right cuda-keyring.",
         apt_checks::cuda_repo_wrong_distro},
        {"apt-local-repo-stale", Layer::platform, snapshot::Severity::warning,
         "a local CUDA repository (/var/cuda-repo-*-local) from an old local .deb install is still an apt source",
         "Reads file:/var/cuda-repo-<distro>-X-Y-local sources: fires when the folder is gone, its signed-by keyring is "
         "missing (NO_PUBKEY), or no CUDA X.Y is installed any more. Fixed by removing the source (and purging the "
         "cuda-repo-*-local package).",
         apt_checks::local_repo_stale},
        {"apt-driver-pin-conflict", Layer::driver, snapshot::Severity::warning,
         "apt holds or pins keep the driver on a branch too old for the installed toolkit or framework",
         "Reads dpkg's holds (Status: hold ok installed) on driver packages and apt pins (/etc/apt/preferences(.d)) of the "
         "driver's meta packages to an old version, and fires only when driver-too-old-for-toolkit or -framework does: "
         "otherwise a hold is a choice. NVIDIA's cuda-repository-pin-600 is no driver pin. Fixed by apt-mark unhold and "
         "removing the pin, then the driver upgrade.",
         apt_checks::driver_pin_conflict},
    };
}

}  // namespace cudoctor::rules::detail
