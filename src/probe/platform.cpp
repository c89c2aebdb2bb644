// Platform probe: OS, kernel, CPU architecture, glibc, gcc, WSL, container, virtual machine,
// Secure Boot and the DKMS state of the nvidia module. Files only.
#include <sys/utsname.h>

#include <gnu/libc-version.h>
#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

#include "common/text.hpp"
#include "common/version.hpp"
#include "formats/dpkg_status.hpp"
#include "formats/efivar.hpp"
#include "formats/ld_so_cache.hpp"
#include "formats/os_release.hpp"
#include "formats/wslconfig.hpp"
#include "probe/container.hpp"
#include "probe/context.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kPlatformProbe = "platform";

/// WSL2 reads the Windows user's %UserProfile%\.wslconfig; from inside, C: is /mnt/c (when
/// automount keeps that name). One user with a memory limit is recorded: several Windows users
/// with one each cannot say which one runs this distribution, so none is.
void read_wslconfig(Context& ctx) {
    auto& p = ctx.snap.platform;
    std::vector<std::pair<std::string, formats::WslMemoryLimit>> found;
    for (const auto& home : ctx.host.glob("/mnt/c/Users", "*")) {
        const std::string file = host::join(home, ".wslconfig");
        if (!ctx.host.is_file(file)) continue;
        auto text_data = ctx.read(kPlatformProbe, file, 1u << 20);
        if (!text_data) continue;
        if (auto limit = formats::parse_wslconfig_memory(*text_data)) found.emplace_back(file, *limit);
    }
    if (found.size() != 1) return;
    p.wslconfig_path = found.front().first;
    p.wsl_memory_limit = found.front().second.bytes;
    p.wsl_memory_line = found.front().second.line;
    p.evidence.push_back({p.wslconfig_path + ":" + std::to_string(p.wsl_memory_line), "[wsl2] memory=" + found.front().second.text});
}
constexpr std::string_view kEfiGlobal = "8be4df61-93ca-11d2-aa0d-00e098032b8c";

std::string first_line(std::string_view s) {
    auto ls = text::lines(s);
    return ls.empty() ? std::string() : std::string(text::trim(ls.front()));
}

std::optional<int> parse_int(std::string_view s) {
    int v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

/// "gcc-12" / "x86_64-linux-gnu-gcc-12" → 12.
std::optional<int> gcc_major_of_name(std::string_view name) {
    const auto pos = name.rfind("gcc-");
    if (pos == std::string_view::npos) return std::nullopt;
    if (pos > 0 && name[pos - 1] != '-' && name[pos - 1] != '/') return std::nullopt;
    return parse_int(name.substr(pos + 4));
}

void read_os(Context& ctx) {
    auto& p = ctx.snap.platform;
    for (const char* file : {"/etc/os-release", "/usr/lib/os-release"}) {
        auto data = ctx.read(kPlatformProbe, file, 1u << 16);
        if (!data) continue;
        auto kv = formats::parse_os_release(*data);
        p.os_id = kv["ID"];
        p.os_version = kv["VERSION_ID"];
        p.os_pretty = kv["PRETTY_NAME"];
        p.evidence.push_back({file, p.os_pretty});
        return;
    }
}

void read_kernel(Context& ctx) {
    auto& p = ctx.snap.platform;
    if (auto r = ctx.read(kPlatformProbe, "/proc/sys/kernel/osrelease", 4096)) {
        p.kernel = first_line(*r);
        p.evidence.push_back({"/proc/sys/kernel/osrelease", p.kernel});
    }
    if (auto a = ctx.read(kPlatformProbe, "/proc/sys/kernel/arch", 4096)) p.arch = first_line(*a);
    if (p.arch.empty() && ctx.ld_cache) {
        // The loader cache knows the machine's own libraries' architecture.
        for (const auto& e : ctx.ld_cache->entries) {
            if (!formats::ld_cache_is_native(e.flags)) continue;
            const auto arch = formats::ld_cache_arch_name(e.flags);
            p.arch = arch == "x86-64" ? "x86_64" : arch == "AArch64" ? "aarch64" : "";
            break;
        }
    }
    if (!ctx.host.is_rooted()) {
        struct utsname u {};
        if (::uname(&u) == 0) {
            if (p.kernel.empty()) p.kernel = u.release;
            if (p.arch.empty()) p.arch = u.machine;
        }
    }
    std::string version_text;
    if (auto v = ctx.read(kPlatformProbe, "/proc/version", 4096)) version_text = *v;
    const std::string lowered = text::to_lower(p.kernel + " " + version_text);
    if (text::contains(lowered, "microsoft") || text::contains(lowered, "wsl")) {
        p.wsl = true;
        p.evidence.push_back({"/proc/sys/kernel/osrelease", "WSL kernel: " + p.kernel});
        // WSL2 shows its GPU as no PCI device: the paravirtual /dev/dxg (a character device; in a
        // machine image a plain file, so "exists" is the test) and the Windows driver's libcuda.
        const bool dxg = ctx.host.exists("/dev/dxg");
        const auto libcuda = ctx.host.glob("/usr/lib/wsl/lib", "libcuda.so*");
        p.wsl_gpu = dxg && !libcuda.empty();
        if (dxg) p.evidence.push_back({"/dev/dxg", "present: the WSL2 GPU device"});
        if (!libcuda.empty()) p.evidence.push_back({libcuda.front(), "the Windows NVIDIA driver's libcuda"});
        read_wslconfig(ctx);
    }
}

void read_dpkg(Context& ctx) {
    auto data = ctx.read_large(kPlatformProbe, "/var/lib/dpkg/status", 256u << 20);
    if (!data) return;
    formats::for_each_dpkg_package(data->view(), [&](const formats::DpkgStanzaView& pkg) {
        if (!pkg.installed()) return;
        if (pkg.held()) ctx.snap.platform.held_packages.push_back({std::string(pkg.name), std::string(pkg.version)});
        ctx.dpkg.push_back({std::string(pkg.name), std::string(pkg.version)});
    });
}

void read_glibc(Context& ctx) {
    auto& p = ctx.snap.platform;
    // ldconfig signs the cache it writes: "ldconfig (Debian GLIBC 2.36-9) stable release version 2.36".
    if (ctx.ld_cache) {
        const auto& gen = ctx.ld_cache->generator;
        if (auto pos = gen.rfind("version "); pos != std::string::npos) {
            if (auto v = Version::parse(gen.substr(pos + 8))) {
                p.glibc = v->str();
                p.evidence.push_back({"/etc/ld.so.cache", gen});
                return;
            }
        }
    }
    if (auto v = ctx.dpkg_version("libc6")) {
        if (auto parsed = Version::parse(*v)) {
            p.glibc = parsed->truncated(2).str();
            p.evidence.push_back({"/var/lib/dpkg/status", "libc6 " + *v});
            return;
        }
    }
    if (!ctx.host.is_rooted()) p.glibc = gnu_get_libc_version();
}

/// gcc 5 was the first whose package is named by its major alone (gcc-5; before it gcc-4.9).
/// The last is far ahead of today's gcc 15, one major a year.
constexpr int kFirstGccMajor = 5;
constexpr int kLastGccMajor = 40;

/// The GNU triplets Debian may name the host's tools with ("x86_64-linux-gnu-gcc-12"): the
/// architecture's own, or each of them where the architecture is unknown.
std::vector<std::string_view> gnu_triplets(std::string_view arch) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kTriplets = {{
        {"x86_64", "x86_64-linux-gnu"},
        {"aarch64", "aarch64-linux-gnu"},
        {"ppc64le", "powerpc64le-linux-gnu"},
    }};
    std::vector<std::string_view> out;
    for (const auto& [name, triplet] : kTriplets)
        if (arch.empty() || arch == name) out.push_back(triplet);
    return out;
}

void read_gcc(Context& ctx) {
    auto& p = ctx.snap.platform;
    // /usr/bin/gcc → gcc-12 (Debian) or → x86_64-linux-gnu-gcc-12 (Ubuntu 24.04): the name says it.
    std::string link = "/usr/bin/gcc";
    for (int hop = 0; hop < 8 && !p.gcc_default; ++hop) {
        auto target = ctx.host.read_link(link);
        if (!target) break;
        if (auto major = gcc_major_of_name(host::basename(*target))) {
            p.gcc_default = major;
            p.evidence.push_back({"/usr/bin/gcc", "-> " + *target});
        }
        link = target->starts_with('/') ? *target : host::join(host::dirname(link), *target);
    }
    if (!p.gcc_default) {
        if (auto v = ctx.dpkg_version("gcc")) {
            // "4:12.2.0-3": the epoch first.
            auto colon = v->find(':');
            if (auto parsed = Version::parse(colon == std::string::npos ? *v : v->substr(colon + 1))) {
                p.gcc_default = parsed->major();
                p.evidence.push_back({"/var/lib/dpkg/status", "gcc " + *v});
            }
        }
    }
    // The host's own gcc-N, under either of the names Debian and Ubuntu give it. They are asked
    // for by name, not found by listing /usr/bin (1,400 names here): a missing name costs one
    // failed lstat. A cross compiler (aarch64-linux-gnu-gcc-12 on an x86_64 machine) builds no
    // host code, so it is not one of them.
    const auto triplets = gnu_triplets(p.arch);
    for (int major = kFirstGccMajor; major <= kLastGccMajor; ++major) {
        bool found = ctx.host.is_executable_file(fmt::format("/usr/bin/gcc-{}", major));
        for (auto t = triplets.begin(); !found && t != triplets.end(); ++t)
            found = ctx.host.is_executable_file(fmt::format("/usr/bin/{}-gcc-{}", *t, major));
        if (found) p.gcc_installed.push_back(major);
    }
    if (p.gcc_default && std::find(p.gcc_installed.begin(), p.gcc_installed.end(), *p.gcc_default) == p.gcc_installed.end())
        p.gcc_installed.push_back(*p.gcc_default);
    std::sort(p.gcc_installed.begin(), p.gcc_installed.end());
    // The C compiler a build (Triton, a C extension) would find first: cc, then gcc, on PATH.
    for (const char* name : {"cc", "gcc"}) {
        for (const auto& dir : ctx.snap.environment.path) {
            if (dir.empty() || !dir.starts_with('/')) continue;
            if (ctx.host.is_executable_file(host::join(dir, name))) {
                p.c_compiler = host::join(dir, name);
                return;
            }
        }
    }
}

void read_container(Context& ctx) {
    auto& p = ctx.snap.platform;
    if (ctx.host.exists("/.dockerenv")) p.container = "docker";
    else if (ctx.host.exists("/run/.containerenv")) p.container = "podman";
    else if (auto c = ctx.read(kPlatformProbe, "/run/systemd/container", 4096)) p.container = first_line(*c);
    else if (auto e = ctx.host.env("container"); e && !e->empty()) p.container = *e;
    if (!p.container.empty()) p.evidence.push_back({"container", p.container});
}

void read_virtualization(Context& ctx) {
    auto& p = ctx.snap.platform;
    // systemd's detect_vm_dmi_vendor(): the first prefix match over these DMI files.
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kVendors = {{
        {"KVM", "kvm"},
        {"OpenStack", "kvm"},
        {"KubeVirt", "kvm"},
        {"Amazon EC2", "amazon"},
        {"QEMU", "qemu"},
        {"VMware", "vmware"},
        {"VMW", "vmware"},
        {"innotek GmbH", "oracle"},
        {"VirtualBox", "oracle"},
        {"Oracle Corporation", "oracle"},
        {"Xen", "xen"},
        {"Bochs", "bochs"},
        {"Parallels", "parallels"},
        {"BHYVE", "bhyve"},
        {"Hyper-V", "microsoft"},
        {"Google Compute Engine", "google"},
    }};
    for (const char* file : {"product_name", "sys_vendor", "board_vendor", "bios_vendor", "product_version"}) {
        const std::string path = host::join("/sys/class/dmi/id", file);
        auto data = ctx.read(kPlatformProbe, path, 4096);
        if (!data) continue;
        const std::string value = first_line(*data);
        for (const auto& [prefix, name] : kVendors) {
            if (value.starts_with(prefix)) {
                p.virtualization = name;
                p.evidence.push_back({path, value});
                return;
            }
        }
        if (value == "Virtual Machine") {  // Hyper-V / Azure: "Microsoft Corporation" + "Virtual Machine"
            p.virtualization = "microsoft";
            p.evidence.push_back({path, value});
            return;
        }
    }
    if (auto x = ctx.read(kPlatformProbe, "/sys/hypervisor/type", 4096); x && first_line(*x) == "xen") p.virtualization = "xen";
}

void read_secure_boot(Context& ctx) {
    auto& p = ctx.snap.platform;
    if (!ctx.host.is_dir("/sys/firmware/efi")) {
        p.secure_boot = ctx.host.is_dir("/sys/firmware") ? "unsupported" : "unknown";
        return;
    }
    const std::string var = "/sys/firmware/efi/efivars/SecureBoot-" + std::string(kEfiGlobal);
    if (auto bytes = ctx.read(kPlatformProbe, var, 4096)) {
        auto on = formats::parse_efivar_bool(*bytes);
        if (on) {
            p.secure_boot = *on ? "enabled" : "disabled";
            p.evidence.push_back({var, p.secure_boot});
        } else {
            p.secure_boot = "unknown";
            ctx.note(kPlatformProbe, var, on.error().message);
        }
        return;
    }
    const std::string legacy = "/sys/firmware/efi/vars/SecureBoot-" + std::string(kEfiGlobal) + "/data";
    if (auto bytes = ctx.read(kPlatformProbe, legacy, 4096); bytes && !bytes->empty()) {
        p.secure_boot = (*bytes)[0] == 1 ? "enabled" : "disabled";
        p.evidence.push_back({legacy, p.secure_boot});
        return;
    }
    p.secure_boot = "unknown";
}

/// The first compiler or make error of a DKMS build log ("cc: error: …", "… error: …"), cut to a line.
std::string first_build_error(const host::Host& host, const std::string& make_log) {
    auto log = host.read_file(make_log, 8u << 20);
    if (!log) return {};
    for (auto line : text::lines(*log))
        if (text::contains(line, "error:") || text::contains(line, "Error ")) return text::printable(text::trim(line), 200);
    return {};
}

void read_dkms(Context& ctx) {
    auto& p = ctx.snap.platform;
    for (const char* module : {"nvidia", "nvidia-open", "nvidia-current"}) {
        const std::string base = host::join("/var/lib/dkms", module);
        auto versions = ctx.host.list_dir(base);
        if (!versions) continue;
        for (const auto& version : *versions) {
            if (!Version::parse(version)) continue;  // "original_module", "kernel-…" links
            auto kernels = ctx.host.list_dir(host::join(base, version));
            bool any = false;
            if (kernels) {
                for (const auto& k : *kernels) {
                    if (k == "source" || k == "build" || !ctx.host.is_dir(host::join(base, version + "/" + k))) continue;
                    p.dkms.push_back(
                        {.module = module, .version = version, .kernel = k, .built_for_running_kernel = k == p.kernel, .build_error = {}});
                    any = true;
                }
            }
            if (!any)
                p.dkms.push_back({.module = module, .version = version, .kernel = "", .built_for_running_kernel = false, .build_error = {}});  // added, never built
            // A failed build leaves its log in build/ (a good one moves it beside the module).
            const auto error = first_build_error(ctx.host, host::join(base, version + "/build/make.log"));
            for (auto& m : p.dkms)
                if (m.module == module && m.version == version) m.build_error = error;
        }
    }
}

}  // namespace

void probe_apt(Context& ctx);  // probe/apt.cpp

void probe_platform(Context& ctx) {
    read_os(ctx);
    read_kernel(ctx);
    read_dpkg(ctx);
    read_glibc(ctx);
    read_gcc(ctx);
    read_container(ctx);
    read_virtualization(ctx);
    read_secure_boot(ctx);
    read_dkms(ctx);
    probe_container(ctx);
    probe_apt(ctx);
}

}  // namespace cudoctor::probe
