// apt probe: the package sources (one-line .list and deb822 .sources files), the keyring files
// they rely on, and the pins of /etc/apt/preferences(.d). Files only, each read capped. (Held
// packages come from the dpkg status file the platform probe reads once.)
#include <algorithm>

#include "common/text.hpp"
#include "formats/apt_sources.hpp"
#include "probe/context.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kAptProbe = "apt";
/// A sources or preferences file is a few lines; a huge one is no configuration apt reads.
constexpr std::size_t kAptFileCap = 1u << 20;
/// At most this many files per folder: a folder of thousands is not a configuration either.
constexpr std::size_t kAptMaxFiles = 256;

/// The folder a file: URI names ("file:///var/x", "file:/var/x" → "/var/x"), "" for other URIs.
std::string local_dir_of(std::string_view uri) {
    if (!uri.starts_with("file:")) return "";
    uri.remove_prefix(5);
    if (uri.starts_with("//")) uri.remove_prefix(2);  // file://HOST/path: apt allows only an empty host
    while (uri.size() > 1 && uri.back() == '/') uri.remove_suffix(1);
    return uri.starts_with('/') ? std::string(uri) : "";
}

/// Whether signed-by names keyring files and none of them exists (apt then says NO_PUBKEY).
/// Fingerprints (no '/') are not files: never "missing".
bool keyring_missing(const host::Host& host, std::string_view signed_by) {
    bool any_path = false;
    for (auto part : text::split(signed_by, ',')) {
        part = text::trim(part);
        if (!part.starts_with('/')) continue;
        any_path = true;
        if (host.exists(part)) return false;
    }
    return any_path;
}

void read_sources_file(Context& ctx, const std::string& file, bool deb822) {
    auto data = ctx.read(kAptProbe, file, kAptFileCap);
    if (!data) return;
    auto entries = deb822 ? formats::parse_apt_sources_deb822(*data) : formats::parse_apt_sources_list(*data);
    for (auto& e : entries) {
        if (e.type != "deb") continue;  // source packages are no part of what installs
        snapshot::AptSource s;
        s.file = file;
        s.line = e.line;
        s.uri = std::move(e.uri);
        s.suite = std::move(e.suite);
        s.components = std::move(e.components);
        s.signed_by = std::move(e.signed_by);
        s.enabled = e.enabled;
        s.signed_by_missing = keyring_missing(ctx.host, s.signed_by);
        if (const auto dir = local_dir_of(s.uri); !dir.empty()) s.local_dir_missing = !ctx.host.is_dir(dir);
        ctx.snap.platform.apt_sources.push_back(std::move(s));
    }
}

std::vector<std::string> capped(std::vector<std::string> files) {
    if (files.size() > kAptMaxFiles) files.resize(kAptMaxFiles);
    return files;
}

void read_sources(Context& ctx) {
    read_sources_file(ctx, "/etc/apt/sources.list", false);
    for (const auto& f : capped(ctx.host.glob("/etc/apt/sources.list.d", "*.list"))) read_sources_file(ctx, f, false);
    for (const auto& f : capped(ctx.host.glob("/etc/apt/sources.list.d", "*.sources"))) read_sources_file(ctx, f, true);
}

void read_keyrings(Context& ctx) {
    auto& out = ctx.snap.platform.apt_keyrings;
    for (const auto& [dir, pattern] :
         {std::pair{"/usr/share/keyrings", "cuda*"}, std::pair{"/etc/apt/trusted.gpg.d", "*"}, std::pair{"/etc/apt/keyrings", "*"}})
        for (const auto& f : capped(ctx.host.glob(dir, pattern)))
            if (ctx.host.is_file(f)) out.push_back(f);
}

/// apt_preferences(5): preferences.d files with no extension or ".pref", named of letters,
/// digits, '-', '_' and '.'; others are ignored by apt, so here too.
bool apt_reads_preferences_file(std::string_view path) {
    const auto name = path.substr(path.rfind('/') + 1);
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != std::string_view::npos)
        return false;
    const auto dot = name.rfind('.');
    return dot == std::string_view::npos || name.substr(dot) == ".pref";
}

void read_pins(Context& ctx) {
    std::vector<std::string> files = {"/etc/apt/preferences"};
    for (const auto& f : capped(ctx.host.glob("/etc/apt/preferences.d", "*")))
        if (apt_reads_preferences_file(f)) files.push_back(f);
    for (const auto& file : files) {
        auto data = ctx.read(kAptProbe, file, kAptFileCap);
        if (!data) continue;
        for (auto& p : formats::parse_apt_preferences(*data))
            ctx.snap.platform.apt_pins.push_back({.file = file, .line = p.line, .package = p.package, .pin = p.pin, .priority = p.priority});
    }
}

}  // namespace

void probe_apt(Context& ctx) {
    read_sources(ctx);
    read_keyrings(ctx);
    read_pins(ctx);
}

}  // namespace cudoctor::probe
