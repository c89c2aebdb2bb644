#include "toolkits/inventory.hpp"

#include <cstdio>

#include "common/text.hpp"
#include "formats/cuda_version_files.hpp"

namespace cudoctor::toolkits {
namespace {

constexpr std::size_t kMaxEntries = 500000;  // a toolkit holds ~10k files; this bounds a hostile tree

void walk_size(const host::Host& host, const std::string& dir, Entry& e, std::size_t& seen, int depth) {
    if (depth > 32 || seen > kMaxEntries) {
        e.size_partial = true;
        return;
    }
    auto names = host.list_dir(dir);
    if (!names) {
        e.size_partial = true;
        return;
    }
    for (const auto& n : *names) {
        if (++seen > kMaxEntries) {
            e.size_partial = true;
            return;
        }
        const std::string p = dir + "/" + n;
        auto st = host.lstat(p);  // links are not followed: lib64 -> targets/... is counted once
        if (!st) continue;
        if (st->type == host::FileType::directory) walk_size(host, p, e, seen, depth + 1);
        else if (st->type == host::FileType::regular) *e.size_bytes += st->size;
    }
}

std::string release_of(const host::Host& host, const std::string& path) {
    auto data = host.read_file(host::join(path, "version.json"), 1u << 20);
    if (!data) return {};
    auto parsed = formats::parse_cuda_version_json(*data);
    if (!parsed || !Version::parse(parsed->cuda)) return {};
    auto v = *Version::parse(parsed->cuda);
    return v.part(2) > 1000 ? v.truncated(2).str() : v.str();  // date-stamped "12.6.20241114"
}

bool inside(const std::string& path, const std::string& dir) {
    return path == dir || (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

}  // namespace

std::string label(const Entry& e) { return (e.release.empty() ? e.toolkit.version : e.release) + " (" + e.toolkit.path + ")"; }

Inventory take_inventory(const host::Host& host, const snapshot::Snapshot& snap, const InventoryOptions& options) {
    Inventory inv;
    if (auto d = host.resolve("/usr/local/cuda"); d && host.is_dir(*d)) inv.default_link = *d;
    if (auto t = host.read_link("/usr/local/cuda"); t && t->starts_with("/etc/alternatives/")) inv.default_via = *t;
    const ReferenceIndex index(host);
    for (const auto& tk : snap.toolkits) {
        Entry e;
        e.toolkit = tk;
        // The probe's release (version.json, a cuda-toolkit-X-Y package, conda's cudatoolkit);
        // version.json read again only for a snapshot written before the probe recorded it.
        e.release = !tk.release.empty() ? tk.release : release_of(host, tk.path);
        if (options.sizes && (tk.install_method == snapshot::InstallMethod::runfile || tk.install_method == snapshot::InstallMethod::deb ||
                              tk.install_method == snapshot::InstallMethod::unknown)) {
            e.size_bytes = 0;
            std::size_t seen = 0;
            walk_size(host, tk.path, e, seen, 0);
        }
        for (const auto& c : snap.cudnn) {
            if (inside(c.path, tk.path) || (!tk.lib_dir.empty() && inside(c.path, tk.lib_dir))) e.cudnn.push_back(c.version);
        }
        e.references = index.naming(tk.path);
        inv.toolkits.push_back(std::move(e));
    }
    return inv;
}

nlohmann::json to_json(const Inventory& inv) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : inv.toolkits) {
        nlohmann::json refs = nlohmann::json::array();
        for (const auto& r : e.references)
            refs.push_back({{"kind", to_string(r.kind)}, {"file", r.file}, {"line", r.line}, {"text", r.text}});
        nlohmann::json j{{"version", e.toolkit.version},
                         {"release", e.release},
                         {"path", e.toolkit.path},
                         {"install_method", std::string(snapshot::to_string(e.toolkit.install_method))},
                         {"is_default", e.toolkit.is_default},
                         {"wins_in_shell", e.toolkit.first_on_path},
                         {"on_path", e.toolkit.on_path},
                         {"cudnn", e.cudnn},
                         {"references", refs}};
        j["size_bytes"] = e.size_bytes ? nlohmann::json(*e.size_bytes) : nlohmann::json(nullptr);
        if (e.size_partial) j["size_partial"] = true;
        list.push_back(std::move(j));
    }
    return {{"toolkits", list}, {"default", inv.default_link}, {"default_via", inv.default_via}};
}

}  // namespace cudoctor::toolkits
