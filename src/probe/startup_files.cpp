#include "probe/startup_files.hpp"

#include <algorithm>
#include <set>

#include "common/text.hpp"
#include "formats/shell_rc.hpp"
#include "probe/context.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kStartupProbe = "startup files";
constexpr std::size_t kMaxLinesPerFile = 200;  // assignments kept from one file

/// The folders a login shell's PATH holds before the start-up files add to it: /etc/environment's
/// PATH when it writes one out, else the folders every Debian/Ubuntu/RHEL login PATH has.
std::vector<std::string> login_path(const host::Host& host) {
    if (auto text = host.read_file("/etc/environment", kRcCap)) {
        for (const auto& a : formats::parse_shell_rc(*text, ""))
            if (a.name == "PATH" && a.value.find('$') == std::string::npos) {
                std::vector<std::string> dirs;
                for (auto d : text::split(a.value, ':'))
                    if (d.starts_with('/')) dirs.emplace_back(d);
                return dirs;
            }
    }
    return {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"};
}

/// "/home/dev/.bashrc" → "/home/dev", "/root/.profile" → "/root"; "" for the system's files.
std::string home_of(const std::string& file) {
    if (file.starts_with("/root/")) return "/root";
    if (file.starts_with("/home/")) {
        const auto slash = file.find('/', 6);
        if (slash != std::string::npos) return file.substr(0, slash);
    }
    return {};
}

/// "/usr/local/cuda-11.2/bin" → "/usr/local/cuda-11.2"; "" for anything else (the unversioned
/// /usr/local/cuda link is cuda-symlink-dangling's business).
std::string toolkit_root(const std::string& dir) {
    constexpr std::string_view prefix = "/usr/local/cuda-";
    if (!dir.starts_with(prefix)) return {};
    std::size_t end = prefix.size();
    while (end < dir.size() && (text::is_digit(dir[end]) || dir[end] == '.')) ++end;
    if (end == prefix.size() || !text::is_digit(dir[prefix.size()]) || (end < dir.size() && dir[end] != '/')) return {};
    return dir.substr(0, end);
}

bool relevant(const formats::ShellAssignment& a) {
    return a.name == "PATH" || a.name == "LD_LIBRARY_PATH" || a.name == "CUDA_LAUNCH_BLOCKING" ||
           a.value.find("/usr/local/cuda") != std::string::npos;
}

/// For a PATH line that puts a toolkit's bin folder after the old PATH: the folder and another
/// nvcc a folder before it holds.
void find_nvcc_before(Context& ctx, const std::vector<formats::PathEntry>& entries, const std::vector<std::string>& login,
                      snapshot::StartupLine& out) {
    const auto old_at = std::find_if(entries.begin(), entries.end(), [](const auto& e) { return e.old_value; });
    if (old_at == entries.end()) return;
    for (auto it = old_at + 1; it != entries.end(); ++it) {
        const auto& dir = it->dir;
        if (it->old_value || !dir.starts_with('/') || dir.find('$') != std::string::npos || dir.find("cuda") == std::string::npos) continue;
        const auto nvcc = host::join(dir, "nvcc");
        if (!ctx.host.is_executable_file(nvcc)) continue;
        const auto real = ctx.host.resolve(nvcc);
        std::vector<std::string> before;
        for (auto b = entries.begin(); b != it; ++b) {
            if (b->old_value) before.insert(before.end(), login.begin(), login.end());
            else if (b->dir.starts_with('/') && b->dir.find('$') == std::string::npos) before.push_back(b->dir);
        }
        for (const auto& f : before) {
            const auto other = host::join(f, "nvcc");
            if (!ctx.host.is_executable_file(other)) continue;
            const auto other_real = ctx.host.resolve(other);
            if (real && other_real && *real == *other_real) continue;  // a link to this same nvcc
            out.nvcc_before = other;
            out.appended_dir = dir;
            return;
        }
    }
}

}  // namespace

std::vector<std::string> shell_rc_files(const host::Host& host) {
    std::vector<std::string> files = {"/etc/profile",    "/etc/bash.bashrc",  "/etc/environment", "/etc/zsh/zshrc",
                                      "/etc/zsh/zshenv", "/etc/zsh/zprofile", "/etc/zshrc",       "/etc/fish/config.fish"};
    for (const auto& f : host.glob("/etc/profile.d", "*")) files.push_back(f);
    for (const auto& f : host.glob("/etc/fish/conf.d", "*.fish")) files.push_back(f);
    std::set<std::string> homes = {"/root"};
    for (const auto& h : host.glob("/home", "*")) homes.insert(h);
    if (auto passwd = host.read_file("/etc/passwd", 1u << 20)) {
        for (auto line : text::lines(*passwd)) {
            auto fields = text::split(line, ':');
            if (fields.size() >= 6 && fields[5].starts_with("/home/")) homes.insert(std::string(fields[5]));
        }
    }
    for (const auto& home : homes) {
        for (const char* rc :
             {".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile", ".config/fish/config.fish"})
            files.push_back(host::join(home, rc));
    }
    return files;
}

void read_startup_files(Context& ctx) {
    auto& env = ctx.snap.environment;
    env.cuda_launch_blocking = ctx.host.env("CUDA_LAUNCH_BLOCKING");
    const auto login = login_path(ctx.host);
    std::set<std::string> seen;  // one file reached by two names (a link) is read once
    for (const auto& file : shell_rc_files(ctx.host)) {
        if (file.ends_with(".fish") || !ctx.host.lstat(file)) continue;  // fish has its own syntax; a missing file says nothing
        if (auto real = ctx.host.resolve(file); real && !seen.insert(*real).second) continue;
        const auto text = ctx.read(kStartupProbe, file, kRcCap);
        if (!text) continue;
        std::size_t kept = 0;
        for (auto& a : formats::parse_shell_rc(*text, home_of(file))) {
            if (!relevant(a)) continue;
            if (++kept > kMaxLinesPerFile) {
                ctx.note(kStartupProbe, file, "more than " + std::to_string(kMaxLinesPerFile) + " assignments; the rest are not read");
                break;
            }
            snapshot::StartupLine line;
            line.file = file;
            line.line = a.line;
            line.text = a.text;
            line.name = a.name;
            line.value = a.value;
            line.keeps_old = a.keeps_old;
            const auto entries = formats::path_entries(a.value, a.name);
            for (const auto& e : entries) {
                const auto root = e.old_value ? std::string() : toolkit_root(e.dir);
                if (!root.empty() && !ctx.host.is_dir(root) &&
                    std::find(line.missing_toolkits.begin(), line.missing_toolkits.end(), root) == line.missing_toolkits.end())
                    line.missing_toolkits.push_back(root);
            }
            if (a.name == "PATH") find_nvcc_before(ctx, entries, login, line);
            env.startup_lines.push_back(std::move(line));
        }
    }
}

}  // namespace cudoctor::probe
