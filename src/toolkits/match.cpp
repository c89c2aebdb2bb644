#include "toolkits/match.hpp"

#include <vector>

#include "common/text.hpp"
#include "common/version.hpp"

namespace cudoctor::toolkits {
namespace {

std::string describe(const Entry& e) {
    std::string s = e.release.empty() ? e.toolkit.version : e.release;
    return s + " (" + e.toolkit.path + ", " + std::string(snapshot::to_string(e.toolkit.install_method)) + ")";
}

bool prefix_match(const Version& spec, const Version& v) {
    for (std::size_t i = 0; i < spec.size(); ++i)
        if (spec.part(i) != v.part(i) || (i >= v.size() && spec.part(i) != 0)) return false;
    return true;
}

}  // namespace

Expected<const Entry*> match_toolkit(const host::Host& host, const Inventory& inv, std::string_view spec_text) {
    const std::string spec(text::trim(spec_text));
    std::string installed;
    for (const auto& e : inv.toolkits) installed += (installed.empty() ? "" : ", ") + describe(e);
    if (installed.empty()) installed = "none";
    std::vector<const Entry*> hits;
    if (spec.starts_with('/')) {
        auto real = host.resolve(spec);
        for (const auto& e : inv.toolkits)
            if (real && *real == e.toolkit.path) hits.push_back(&e);
        if (hits.empty())
            return fail(Errc::usage, host.in_image(Error{Errc::usage, "no CUDA toolkit at " + spec}).message + "; installed: " + installed);
        return hits.front();
    }
    std::string_view digits = spec;
    if (digits.starts_with("cuda-")) digits.remove_prefix(5);
    else if (digits.starts_with("cuda")) digits.remove_prefix(4);
    auto v = Version::parse(digits);
    if (!v || v->str() != digits || v->size() > 4)
        return fail(Errc::usage, "'" + text::printable(spec) + "' is not a version (say 12, 12.4 or 12.4.1)");
    for (const auto& e : inv.toolkits) {
        auto nvcc = Version::parse(e.toolkit.version);
        auto release = Version::parse(e.release);
        bool match = false;
        if (v->size() <= 2) {
            match = (nvcc && prefix_match(*v, *nvcc)) || (release && prefix_match(*v, *release));
        } else {
            match = (nvcc && *nvcc == *v) || (release && *release == *v);
        }
        if (match) hits.push_back(&e);
    }
    if (hits.empty()) return fail(Errc::usage, "no CUDA toolkit " + spec + " installed (installed: " + installed + ")");
    if (hits.size() > 1) {
        std::string choices;
        for (const auto* e : hits) choices += (choices.empty() ? "" : ", ") + describe(*e);
        return fail(Errc::usage, spec + " is ambiguous: " + choices + "; say which (a longer version or the folder)");
    }
    return hits.front();
}

Expected<std::optional<Pin>> find_pin(const host::Host& host, std::string_view start_dir) {
    std::string dir = start_dir.empty() ? "/" : std::string(start_dir);
    for (int guard = 0; guard < 256; ++guard) {
        const std::string file = host::join(dir, ".cuda-version");
        if (host.is_file(file)) {
            auto data = host.read_file(file, 4096);
            if (!data)
                return fail(data.error().code == Errc::too_large ? Errc::parse : data.error().code,
                            file + ": " +
                                (data.error().code == Errc::too_large ? "larger than 4 KiB, not a version pin" : data.error().message));
            for (auto line : text::lines(*data)) {
                auto t = text::trim(line);
                if (t.empty() || t.starts_with('#')) continue;
                return std::optional<Pin>(Pin{std::string(t), file});
            }
            return fail(Errc::parse, file + ": names no version");
        }
        if (dir == "/") break;
        dir = host::dirname(dir);
    }
    return std::optional<Pin>();
}

}  // namespace cudoctor::toolkits
