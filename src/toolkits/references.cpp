#include "toolkits/references.hpp"

#include <algorithm>
#include <set>

#include "common/text.hpp"
#include "probe/startup_files.hpp"

namespace cudoctor::toolkits {
namespace {

constexpr int kModuleDepth = 4;
constexpr std::size_t kMaxModuleFiles = 2000;

bool path_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || c == '.';
}

}  // namespace

const char* to_string(RefKind kind) {
    switch (kind) {
        case RefKind::ld_so_conf: return "ld.so.conf.d";
        case RefKind::alternatives: return "alternatives";
        case RefKind::shell_rc: return "shell rc";
        case RefKind::modulefile: return "modulefile";
    }
    return "?";
}

bool names_folder(std::string_view line, std::string_view dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
    if (dir.empty()) return false;
    for (std::size_t at = line.find(dir); at != std::string_view::npos; at = line.find(dir, at + 1)) {
        const std::size_t end = at + dir.size();
        if (at > 0 && (path_char(line[at - 1]) || line[at - 1] == '/')) continue;  // inside another path
        if (end == line.size() || !path_char(line[end])) return true;
        // "cuda-12.4." at the end of a sentence still names it; "cuda-12.4.1" does not.
        if (line[end] == '.' && (end + 1 == line.size() || !path_char(line[end + 1]))) return true;
    }
    return false;
}

ReferenceIndex::ReferenceIndex(const host::Host& host) : m_host(host) {
    add_text(RefKind::ld_so_conf, "/etc/ld.so.conf");
    for (const auto& f : host.glob("/etc/ld.so.conf.d", "*.conf")) add_text(RefKind::ld_so_conf, f);
    for (const auto& link : host.glob("/etc/alternatives", "cuda*")) {
        if (auto t = host.read_link(link)) m_files.push_back({RefKind::alternatives, link, {}, *t, true});
    }
    for (const auto& f : host.glob("/var/lib/dpkg/alternatives", "cuda*")) add_text(RefKind::alternatives, f);
    for (const auto& f : probe::shell_rc_files(host)) add_text(RefKind::shell_rc, f);
    std::vector<std::string> module_dirs = {"/usr/share/modules/modulefiles",
                                            "/etc/environment-modules/modulefiles",
                                            "/usr/share/modulefiles",
                                            "/etc/modulefiles",
                                            "/opt/modulefiles",
                                            "/usr/local/modulefiles",
                                            "/usr/share/lmod/lmod/modulefiles",
                                            "/opt/apps/modulefiles"};
    if (auto mp = host.env("MODULEPATH"))
        for (auto d : text::split(*mp, ':'))
            if (!d.empty()) module_dirs.emplace_back(d);
    std::set<std::string> seen;
    for (const auto& d : module_dirs) {
        auto real = host.resolve(d);
        if (real && seen.insert(*real).second) walk_modules(*real, 0);
    }
}

void ReferenceIndex::add_text(RefKind kind, const std::string& path) {
    if (!m_host.is_file(path)) return;
    auto data = m_host.read_file(path, probe::kRcCap);
    if (!data) return;
    if (std::any_of(m_files.begin(), m_files.end(), [&](const File& f) { return f.path == path; })) return;
    m_files.push_back({kind, path, std::move(*data), {}, false});
}

void ReferenceIndex::walk_modules(const std::string& dir, int depth) {
    if (depth > kModuleDepth) return;
    auto names = m_host.list_dir(dir);
    if (!names) return;
    for (const auto& n : *names) {
        if (m_files.size() > kMaxModuleFiles) return;
        const std::string p = host::join(dir, n);
        auto st = m_host.lstat(p);
        if (!st) continue;
        if (st->type == host::FileType::directory) walk_modules(p, depth + 1);
        else if (st->type == host::FileType::regular && st->size < probe::kRcCap) add_text(RefKind::modulefile, p);
    }
}

std::vector<Reference> ReferenceIndex::naming(std::string_view dir) const {
    std::vector<Reference> refs;
    for (const auto& f : m_files) {
        if (f.is_link) {
            std::string_view t = f.link_target;
            while (t.size() > 1 && t.back() == '/') t.remove_suffix(1);
            if (t == dir) refs.push_back({f.kind, f.path, 0, "-> " + f.link_target});
            continue;
        }
        int n = 0;
        for (auto line : text::lines(f.content)) {
            ++n;
            if (names_folder(line, dir)) refs.push_back({f.kind, f.path, n, std::string(text::trim(line))});
        }
    }
    return refs;
}

}  // namespace cudoctor::toolkits
