#include "gpucode/inputs.hpp"

#include <cctype>
#include <set>

namespace cudoctor::gpucode {
namespace {

constexpr int kMaxDepth = 32;

bool looks_like_module_name(const std::string& s) {
    if (s.empty() || s.find('/') != std::string::npos) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
    return !std::isdigit(static_cast<unsigned char>(s.front()));
}

bool elf_looking_name(const std::string& name, const host::FileInfo& info) {
    return name.ends_with(".so") || name.find(".so.") != std::string::npos || name.ends_with(".o") || name.ends_with(".node") ||
           info.executable;
}

class Walker {
  public:
    Walker(const host::Host& host, Expansion& out, std::size_t max_files) : m_host(host), m_out(out), m_max(max_files) {}

    void add(const std::string& path, bool named) {
        ++m_reached;
        auto real = m_host.resolve(path);
        const std::string key = real ? *real : path;
        if (!m_seen.insert(key).second) return;
        // Walked files are shown by their real name (libcublas.so.13, not the libcublas.so link).
        m_out.files.push_back({named ? path : key, named});
    }

    void walk(const std::string& dir, int depth, const std::string& arg) {
        if (depth > kMaxDepth || m_stopped) return;
        auto names = m_host.list_dir(dir);
        if (!names) {
            if (depth == 0) m_out.errors.emplace_back(arg, names.error());
            return;
        }
        for (const auto& name : *names) {
            if (m_out.files.size() >= m_max) {
                m_out.errors.emplace_back(arg, Error{Errc::too_large, "more than " + std::to_string(m_max) +
                                                                          " candidate files: the rest of " + dir + " was not walked"});
                m_stopped = true;
                return;
            }
            const std::string path = host::join(dir, name);
            auto link = m_host.lstat(path);
            if (!link) continue;
            if (link->type == host::FileType::directory) {
                walk(path, depth + 1, arg);
                continue;
            }
            auto info = link->type == host::FileType::symlink ? m_host.stat(path) : link;
            if (!info || info->type != host::FileType::regular) continue;  // dangling links, folders behind links, FIFOs
            if (elf_looking_name(name, *info)) add(path, false);
        }
    }

    /// Candidates met so far, those another argument reached first included.
    std::size_t reached() const { return m_reached; }
    bool stopped() const { return m_stopped; }

  private:
    const host::Host& m_host;
    Expansion& m_out;
    std::size_t m_max;
    std::set<std::string> m_seen;
    std::size_t m_reached = 0;
    bool m_stopped = false;
};

}  // namespace

Expansion expand_inputs(const host::Host& host, const std::vector<std::string>& args, const std::vector<std::string>& python_sites,
                        std::size_t max_files) {
    Expansion out;
    Walker walker(host, out, max_files);
    for (const auto& arg : args) {
        auto info = host.stat(arg);
        if (info && info->type == host::FileType::directory) {
            const std::size_t reached = walker.reached(), errors = out.errors.size();
            const bool stopped = walker.stopped();
            walker.walk(arg, 0, arg);
            // A folder with nothing to read is said, not answered with an empty report and exit 0.
            if (walker.reached() == reached && out.errors.size() == errors && !stopped)
                out.errors.emplace_back(arg, Error{Errc::not_found, arg + ": no ELF files (libraries, executables, objects) in this folder"});
            continue;
        }
        if (info) {
            walker.add(arg, true);
            continue;
        }
        if (info.error().code != Errc::not_found || !looks_like_module_name(arg)) {
            out.errors.emplace_back(arg, info.error().code == Errc::not_found ? Error{Errc::not_found, arg + ": no such file or folder"}
                                                                              : info.error());
            continue;
        }
        // A Python package ("torch") or a dotted one ("jax_plugins.xla_cuda12").
        std::string relative = arg;
        for (char& c : relative)
            if (c == '.') c = '/';
        bool found = false;
        const std::size_t first = out.files.size();
        for (const auto& site : python_sites) {
            const std::string dir = host::join(site, relative);
            if (host.is_dir(dir)) {
                walker.walk(dir, 0, arg);
                out.packages.push_back({arg, site, first, out.files.size()});
                found = true;
                break;
            }
            auto modules = host.glob(host::dirname(dir), host::basename(dir) + ".*.so");
            if (!modules.empty()) {
                for (const auto& m : modules) walker.add(m, true);
                out.packages.push_back({arg, site, first, out.files.size()});
                found = true;
                break;
            }
        }
        if (!found) out.errors.emplace_back(arg, Error{Errc::not_found, arg + ": no such file, folder or installed Python package"});
    }
    return out;
}

}  // namespace cudoctor::gpucode
