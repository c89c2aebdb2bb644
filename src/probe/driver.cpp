// Driver probe: the kernel module (version, flavour, which nvidia modules are loaded, nouveau)
// and the user-space driver libraries (libcuda, libnvidia-ml) with the version in their file
// names. A module and libraries of different versions are recorded as they are: that is the
// "Driver/library version mismatch" state, which the rules judge.
#include <algorithm>
#include <array>

#include "common/text.hpp"
#include "common/version.hpp"
#include "formats/nvidia_proc.hpp"
#include "formats/package_logs.hpp"
#include "formats/windows_inf.hpp"
#include "probe/ahead.hpp"
#include "probe/context.hpp"
#include "probe/cuda_libs.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kDriverProbe = "driver";
constexpr std::array<std::string_view, 6> kModules = {"nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia_peermem", "nouveau"};

void read_kernel_module(Context& ctx) {
    auto& d = ctx.snap.driver;
    if (auto text_data = ctx.read(kDriverProbe, "/proc/driver/nvidia/version", 1u << 16)) {
        auto parsed = formats::parse_nvidia_proc_version(*text_data);
        if (parsed) {
            d.kernel_module_version = parsed->version;
            d.flavour = parsed->open ? snapshot::ModuleFlavour::open : snapshot::ModuleFlavour::proprietary;
            d.kernel_module_compiler = parsed->compiler;
            d.evidence.push_back({"/proc/driver/nvidia/version", std::string(text::trim(text::lines(*text_data).front()))});
        } else {
            ctx.note(kDriverProbe, "/proc/driver/nvidia/version", parsed.error().message);
        }
    }
    if (auto sys = ctx.read(kDriverProbe, "/sys/module/nvidia/version", 4096)) {
        const std::string v(text::trim(*sys));
        if (Version::parse(v)) {
            if (d.kernel_module_version.empty()) d.kernel_module_version = v;
            else if (v != d.kernel_module_version)
                ctx.note(kDriverProbe, "/sys/module/nvidia/version",
                         "says " + v + " but /proc/driver/nvidia/version says " + d.kernel_module_version);
            d.evidence.push_back({"/sys/module/nvidia/version", v});
        } else {
            ctx.note(kDriverProbe, "/sys/module/nvidia/version", "not a version: " + text::printable(v, 40));
        }
    }
    if (d.flavour == snapshot::ModuleFlavour::unknown && !d.kernel_module_version.empty()) {
        // modinfo's license: "NVIDIA" for the proprietary module, "Dual MIT/GPL" for the open one.
        if (auto taint = ctx.read(kDriverProbe, "/sys/module/nvidia/taint", 4096))
            d.flavour = text::contains(*taint, "P") ? snapshot::ModuleFlavour::proprietary : snapshot::ModuleFlavour::open;
    }
}

void read_loaded_modules(Context& ctx) {
    auto& d = ctx.snap.driver;
    if (auto text_data = ctx.read(kDriverProbe, "/proc/modules", 16u << 20)) {
        auto modules = formats::parse_proc_modules(*text_data);
        if (!modules) {
            ctx.note(kDriverProbe, "/proc/modules", modules.error().message);
        } else {
            d.modules_known = true;
            for (const auto& m : *modules) {
                if (std::find(kModules.begin(), kModules.end(), m.name) != kModules.end()) d.loaded_modules.push_back(m.name);
            }
            std::string loaded;
            for (const auto& m : d.loaded_modules) loaded += (loaded.empty() ? "" : ", ") + m;
            d.evidence.push_back({"/proc/modules", loaded.empty() ? "no nvidia or nouveau module" : "loaded: " + loaded});
            return;
        }
    }
    // No /proc/modules (a module-less kernel, a restricted container): /sys/module still lists them.
    if (!ctx.host.is_dir("/sys/module")) {
        d.modules_known = false;
        return;
    }
    d.modules_known = true;
    for (auto name : kModules) {
        if (ctx.host.is_dir(host::join("/sys/module", name))) d.loaded_modules.emplace_back(name);
    }
    d.evidence.push_back({"/sys/module", "module folders"});
}

bool is_driver_library(std::string_view name) { return name.starts_with("libcuda.so") || name.starts_with("libnvidia-ml.so"); }

void add_library(Context& ctx, const std::string& path) {
    auto& d = ctx.snap.driver;
    if (text::contains(path, "/stubs/")) return;  // the toolkit's link-time stub is no driver
    auto real = ctx.host.resolve(path);
    if (!real || !ctx.host.is_file(*real)) return;
    for (const auto& lib : d.libraries)
        if (lib.path == *real) return;
    const std::string file = host::basename(*real);
    snapshot::DriverLibrary lib;
    lib.name = file.substr(0, file.find(".so") + 3);
    lib.path = *real;
    // libcuda.so.550.54.14 carries the driver version; WSL's libcuda.so.1.1 does not.
    if (auto v = Version::parse(so_version(file)); v && v->major() >= 100) lib.version = v->str();
    d.libraries.push_back(std::move(lib));
}

void read_user_space(Context& ctx) {
    auto& d = ctx.snap.driver;
    if (ctx.ld_cache) {
        for (const auto& e : ctx.ld_cache->entries)
            if (is_driver_library(e.key)) add_library(ctx, e.value);
    }
    std::vector<std::string_view> folders(kSystemLibraryFolders.begin(), kSystemLibraryFolders.end());
    folders.insert(folders.end(), {"/usr/lib/wsl/lib", "/usr/local/nvidia/lib64", "/usr/lib/nvidia"});
    for (const auto dir : folders) {
        auto names = ctx.host.list_dir(dir);
        if (!names) continue;
        for (const auto& name : *names)
            if (is_driver_library(name) && !so_version(name).empty()) add_library(ctx, host::join(dir, name));
    }
    for (const auto& lib : d.libraries) {
        if (!lib.version.empty() &&
            std::find(d.user_space_versions.begin(), d.user_space_versions.end(), lib.version) == d.user_space_versions.end())
            d.user_space_versions.push_back(lib.version);
    }
    std::sort(d.user_space_versions.begin(), d.user_space_versions.end(),
              [](const auto& a, const auto& b) { return *Version::parse(a) < *Version::parse(b); });
}

/// Under WSL2 the Windows driver serves the GPU. Its store is mounted at /usr/lib/wsl/drivers,
/// one folder per driver package (<inf>_amd64_<hash>; other vendors' too): NVIDIA's is the one
/// holding libcuda.so.1.1, as nvidia-container-toolkit picks it, and its INF's DriverVer
/// (31.0.15.5186) is the driver's version in Windows' numbering (551.86 in NVIDIA's).
void read_wsl_driver(Context& ctx) {
    constexpr std::string_view kStore = "/usr/lib/wsl/drivers";
    constexpr std::size_t kInfCap = 4u << 20;  // NVIDIA's display INF is about 1 MB
    auto& d = ctx.snap.driver;
    if (!ctx.snap.platform.wsl) return;
    std::vector<std::string> versions;
    for (const auto& folder : ctx.host.glob(kStore, "*")) {
        if (!ctx.host.is_dir(folder) || !ctx.host.is_file(host::join(folder, "libcuda.so.1.1"))) continue;
        const std::string name = host::basename(folder);
        const auto cut = name.find("_amd64_");
        std::vector<std::string> infs;
        if (cut != std::string::npos && ctx.host.is_file(host::join(folder, name.substr(0, cut))))
            infs.push_back(host::join(folder, name.substr(0, cut)));
        else
            for (const char* pattern : {"*.inf", "*.INF"})
                for (const auto& f : ctx.host.glob(folder, pattern)) infs.push_back(f);
        for (const auto& inf : infs) {
            const auto text_data = ctx.read(kDriverProbe, inf, kInfCap);
            if (!text_data) continue;
            const auto ver = formats::parse_inf_driver_ver(*text_data);
            const auto nvidia = ver ? formats::nvidia_version_of_windows(ver->version) : std::nullopt;
            if (!nvidia) {
                ctx.note(kDriverProbe, inf,
                         ver ? "DriverVer " + text::printable(ver->version, 40) + " is no NVIDIA driver version"
                             : "no DriverVer in its [Version] section");
                continue;
            }
            d.evidence.push_back({inf, "DriverVer " + ver->date + "," + ver->version + " → Windows driver " + *nvidia});
            if (std::find(versions.begin(), versions.end(), *nvidia) == versions.end()) versions.push_back(*nvidia);
            break;
        }
    }
    if (versions.size() > 1) {
        // Two NVIDIA driver packages in the store (an old one left behind): the facts do not say
        // which one serves the GPU, so none is claimed.
        std::string list;
        for (const auto& v : versions) list += (list.empty() ? "" : ", ") + v;
        ctx.note(kDriverProbe, std::string(kStore), "several NVIDIA driver packages (" + list + "): which one serves the GPU is unknown");
        return;
    }
    if (!versions.empty()) d.windows_version = versions.front();
}

constexpr std::string_view kDriverPackagePrefixes[] = {"nvidia-driver",   "libnvidia-compute",    "nvidia-dkms",
                                                       "nvidia-kernel",   "nvidia-utils",         "libnvidia-gl",
                                                       "cuda-drivers",    "nvidia-open",          "libcuda1",
                                                       "nvidia-headless", "linux-modules-nvidia", "nvidia-fabricmanager"};

bool is_driver_package(std::string_view name) {
    if (name.empty()) return false;
    for (std::string_view p : kDriverPackagePrefixes) {
        // The first letter first: a dpkg.log names thousands of packages, few of them NVIDIA's.
        if (p[0] == name[0] && name.starts_with(p)) return true;
    }
    return false;
}

/// Every driver package's name holds one of these: a log line without them names none, and
/// memmem finds the few lines that do in a dpkg.log of thousands without splitting it. Not
/// "cuda" alone: a toolkit's cuda-* packages are most of a CUDA machine's dpkg.log (1,512 of
/// this VM's lines, none a driver's), and only cuda-drivers and libcuda1 hold no "nvidia".
constexpr std::string_view kDriverPackageWords[] = {"nvidia", "cuda-drivers", "libcuda1"};

constexpr bool every_prefix_holds_a_word() {
    for (std::string_view p : kDriverPackagePrefixes) {
        bool held = false;
        for (std::string_view w : kDriverPackageWords) held = held || p.find(w) != std::string_view::npos;
        if (!held) return false;
    }
    return true;
}
static_assert(every_prefix_holds_a_word(), "is_driver_package() must only accept names holding a kDriverPackageWords word");

/// The latest driver package changes (read_driver_package_logs(), ahead on the second core
/// where there is one), and the driver packages dpkg has installed.
void read_package_logs(Context& ctx) {
    run_part(Part::package_logs, ctx);
    auto& events = ctx.snap.driver.package_events;
    constexpr std::size_t kKeep = 24;
    if (events.size() > kKeep) events.erase(events.begin(), events.end() - static_cast<long>(kKeep));
    for (const auto& pkg : ctx.dpkg)
        if (is_driver_package(pkg.name)) ctx.snap.driver.packages.push_back(pkg.name + " " + pkg.version);
}

void apply_overrides(Context& ctx) {
    auto& d = ctx.snap.driver;
    if (auto v = ctx.host.env("CUDOCTOR_OVERRIDE_DRIVER_VERSION"); v && Version::parse(*v)) {
        d.kernel_module_version = *v;
        d.user_space_versions = {*v};
        ctx.snap.overrides.push_back("CUDOCTOR_OVERRIDE_DRIVER_VERSION=" + *v);
    }
    std::string driver = d.kernel_module_version;
    if (driver.empty() && !d.user_space_versions.empty()) driver = d.user_space_versions.back();
    if (auto v = ctx.host.env("CUDOCTOR_OVERRIDE_CUDA"); v && Version::parse(*v)) {
        d.max_cuda = Version::parse(*v)->truncated(2).str();
        d.max_cuda_source = "override";
        ctx.snap.overrides.push_back("CUDOCTOR_OVERRIDE_CUDA=" + *v);
    } else if (auto parsed = Version::parse(driver)) {
        if (auto max = ctx.kb.max_cuda_for(*parsed)) {
            d.max_cuda = max->truncated(2).str();
            d.max_cuda_source = "kb:cuda_driver.tsv (driver " + driver + ")";
        }
    } else if (auto windows = Version::parse(d.windows_version)) {
        if (auto max = ctx.kb.max_cuda_for(*windows, kb::DriverOs::windows_driver)) {
            d.max_cuda = max->truncated(2).str();
            d.max_cuda_source = "kb:cuda_driver.tsv (Windows driver " + d.windows_version + ")";
        }
    }
}

}  // namespace

/// The driver package changes: from apt's history (which says who asked: an unattended
/// upgrade, a person's apt command), else from dpkg's own log.
void read_driver_package_logs(Context& ctx) {
    auto& events = ctx.snap.driver.package_events;
    constexpr std::size_t kLogCap = 64u << 20;
    // Changes are only kept for driver packages: a history naming no driver word has none.
    if (auto history = ctx.read_large(kDriverProbe, "/var/log/apt/history.log", kLogCap);
        history && formats::holds_any(history->view(), kDriverPackageWords)) {
        for (const auto& t : formats::parse_apt_history(history->view(), is_driver_package)) {
            for (const auto& c : t.changes) {
                events.push_back({t.start, c.action, c.package, c.old_version, c.new_version, t.commandline, "/var/log/apt/history.log"});
            }
        }
    }
    if (events.empty()) {
        if (auto log = ctx.read_large(kDriverProbe, "/var/log/dpkg.log", kLogCap)) {
            for (const auto& a : formats::parse_dpkg_log(formats::lines_holding(log->view(), kDriverPackageWords), is_driver_package)) {
                events.push_back({a.when, a.action, a.package, a.old_version, a.new_version, "", "/var/log/dpkg.log"});
            }
        }
    }
}

void probe_driver(Context& ctx) {
    read_kernel_module(ctx);
    read_loaded_modules(ctx);
    read_user_space(ctx);
    read_wsl_driver(ctx);
    read_package_logs(ctx);
    apply_overrides(ctx);
}

}  // namespace cudoctor::probe
