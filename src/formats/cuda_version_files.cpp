#include "formats/cuda_version_files.hpp"

#include <algorithm>

#include "common/text.hpp"
#include "formats/json_text.hpp"

namespace cudoctor::formats {
namespace {

/// version.json's `"<key>": {"name": ..., "version": "..."}` → the version, or "".
std::string component_version(const nlohmann::json& doc, std::string_view key) {
    const auto it = doc.find(key);
    if (it == doc.end()) return {};
    return detail::string_member(*it, "version");
}

/// The version that starts right after the first `phrase` in `text`, when it has at least
/// `min_parts` parts.
std::optional<Version> version_after(std::string_view text, std::string_view phrase, std::size_t min_parts) {
    for (auto at = text.find(phrase); at != std::string_view::npos; at = text.find(phrase, at + 1)) {
        auto v = Version::parse(text.substr(at + phrase.size()));
        if (v && v->size() >= min_parts) return v;
    }
    return std::nullopt;
}

}  // namespace

Expected<CudaVersionJson> parse_cuda_version_json(std::string_view text) {
    auto doc = detail::parse_json_object(text);
    if (!doc) return fail(doc.error().code, doc.error().message);
    CudaVersionJson out;
    out.cuda = component_version(*doc, "cuda");
    out.cudart = component_version(*doc, "cuda_cudart");
    out.nvcc = component_version(*doc, "cuda_nvcc");
    out.driver = component_version(*doc, "nvidia_driver");
    return out;
}

Expected<Version> parse_cuda_version_txt(std::string_view text) {
    if (auto v = version_after(text, "CUDA Version ", 2)) return *v;
    return fail(Errc::parse, "no 'CUDA Version X.Y' in '" + text::printable(text::trim(text), 60) + "'");
}

Expected<Version> parse_nvcc_version_output(std::string_view text) {
    for (auto at = text.find("release "); at != std::string_view::npos; at = text.find("release ", at + 1)) {
        const auto rest = text.substr(at + 8);
        const auto release = Version::parse(rest);
        if (!release || release->size() < 2) continue;
        // "release 13.0, V13.0.88": the V part right after is the full version, when it agrees.
        const auto after = rest.substr(std::min(rest.size(), rest.find_first_not_of("0123456789.")));
        if (after.starts_with(", V")) {
            const auto full = Version::parse(after.substr(3));
            if (full && full->size() >= 3 && full->truncated(2) == release->truncated(2)) return *full;
        }
        return release->truncated(2);
    }
    return fail(Errc::parse, "no 'release X.Y' in nvcc --version output");
}

}  // namespace cudoctor::formats
