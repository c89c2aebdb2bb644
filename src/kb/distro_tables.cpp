// distro_releases.tsv and package_names.tsv: what to type on this distribution; installer_checksums.tsv: what NVIDIA's downloads hash to.
#include <algorithm>

#include "common/text.hpp"
#include "kb/kb_data.hpp"

namespace cudoctor::kb {

namespace detail {

Expected<void> read_distros(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns(
            {"distro", "version", "codename", "default_gcc", "cuda_repo", "distro_driver_branch", "confidence", "note"});
        !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        DistroRelease d;
        d.distro = r.text("distro");
        d.version = r.text("version");
        if (d.distro.empty() || d.version.empty()) return r.error(d.distro.empty() ? "distro" : "version", "empty");
        d.codename = r.text("codename");
        CUDOCTOR_KB_TRY(d.default_gcc, r.optional_int("default_gcc"));
        d.cuda_repo = r.text("cuda_repo");
        CUDOCTOR_KB_TRY(d.distro_driver_branch, r.optional_int("distro_driver_branch"));
        d.confidence = r.text("confidence");
        d.note = r.text("note");
        data.distros.push_back(std::move(d));
    }
    return {};
}

Expected<void> read_packages(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"name", "template", "repository", "pulls_driver", "confidence", "note"}); !ok) return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        PackageTemplate p;
        p.name = r.text("name");
        p.text = r.text("template");
        if (p.name.empty() || p.text.empty()) return r.error(p.name.empty() ? "name" : "template", "empty");
        p.repository = r.text("repository");
        CUDOCTOR_KB_TRY(p.pulls_driver, r.optional_yes_no("pulls_driver"));
        p.confidence = r.text("confidence");
        p.note = r.text("note");
        data.packages.push_back(std::move(p));
    }
    return {};
}

namespace {

bool hex_of(std::string_view s, std::size_t digits) {
    return s.size() == digits && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

Expected<void> read_checksums(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"file", "kind", "release", "sha256", "md5", "source"}); !ok) return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        InstallerChecksum c;
        c.file = r.text("file");
        c.kind = r.text("kind");
        c.release = r.text("release");
        c.sha256 = r.text("sha256");
        c.md5 = r.text("md5");
        c.source = r.text("source");
        if (c.file.empty() || c.file.find('/') != std::string::npos) return r.error("file", "a file name, without a folder");
        if (c.kind != "cuda-runfile" && c.kind != "cudnn-archive") return r.error("kind", "must be cuda-runfile or cudnn-archive");
        if (!c.sha256.empty() && !hex_of(c.sha256, 64)) return r.error("sha256", "64 lower-case hex digits");
        if (!c.md5.empty() && !hex_of(c.md5, 32)) return r.error("md5", "32 lower-case hex digits");
        if (c.sha256.empty() && c.md5.empty()) return r.error("sha256", "a row needs a SHA-256 or an MD5");
        for (const auto& other : data.checksums)
            if (other.file == c.file) return r.error("file", "listed twice");
        data.checksums.push_back(std::move(c));
    }
    return {};
}

}  // namespace detail

std::optional<DistroRelease> Kb::distro_release(std::string_view distro, std::string_view version) const {
    for (const auto& d : distro_table()) {
        if (d.distro == distro && d.version == version) return d;
    }
    return std::nullopt;
}

std::optional<int> Kb::default_gcc_of(std::string_view distro, std::string_view version) const {
    const auto release = distro_release(distro, version);
    return release ? release->default_gcc : std::nullopt;
}

std::optional<PackageTemplate> Kb::package_template(std::string_view name) const {
    for (const auto& p : package_table()) {
        if (p.name == name) return p;
    }
    return std::nullopt;
}

std::optional<std::string> Kb::package_name(std::string_view name, const std::map<std::string, std::string>& values) const {
    const auto templ = package_template(name);
    if (!templ) return std::nullopt;
    std::string out;
    const std::string& t = templ->text;
    for (std::size_t i = 0; i < t.size();) {
        if (t[i] != '{') {
            out += t[i++];
            continue;
        }
        const auto close = t.find('}', i);
        if (close == std::string::npos) return std::nullopt;
        const auto value = values.find(t.substr(i + 1, close - i - 1));
        if (value == values.end()) return std::nullopt;
        out += value->second;
        i = close + 1;
    }
    return out;
}

}  // namespace cudoctor::kb
