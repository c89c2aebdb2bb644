#include "formats/python_meta.hpp"

#include "common/text.hpp"
#include "formats/line_reader.hpp"
#include "formats/python_literal.hpp"

namespace cudoctor::formats {
namespace {

using detail::find_top_level_assignment;
using detail::read_python_string;

/// Leading whitespace removed only: the rest of a file is read on from here, and trimming its end
/// each time would cost a scan of the whole tail.
std::string_view ltrim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r\n\v\f");
    return b == std::string_view::npos ? std::string_view{} : s.substr(b);
}

/// The string the first top-level assignment to `name` holds; nullopt when there is none or it
/// holds something else (None, an expression), as torch's `cuda = None` means "no CUDA".
std::optional<std::string> first_assignment_string(std::string_view text, std::string_view name) {
    std::size_t next = 0;
    const auto rhs = find_top_level_assignment(text, name, 0, next);
    if (!rhs) return std::nullopt;
    std::size_t used = 0;
    const auto from = static_cast<std::size_t>(rhs->data() - text.data());
    return read_python_string(text.substr(from), used);
}

/// Where the values of a quoted key start, as TF writes both `'key': value` (dict) and
/// `('key', value)` (pairs): the text after each separator, to the end of the file.
std::vector<std::string_view> values_after_key(std::string_view text, std::string_view key) {
    std::vector<std::string_view> out;
    for (const char quote : {'\'', '"'}) {
        const std::string quoted = std::string(1, quote) + std::string(key) + quote;
        for (auto at = text.find(quoted); at != std::string_view::npos; at = text.find(quoted, at + 1)) {
            auto rest = ltrim(text.substr(at + quoted.size()));
            if (rest.empty() || (rest.front() != ':' && rest.front() != ',')) continue;
            out.push_back(ltrim(rest.substr(1)));
        }
    }
    return out;
}

std::optional<std::string> keyed_string(std::string_view text, std::string_view key) {
    for (auto rest : values_after_key(text, key)) {
        std::size_t used = 0;
        if (auto s = read_python_string(rest, used, /*allow_triple=*/false)) return s;
    }
    return std::nullopt;
}

std::optional<bool> python_bool(std::string_view rest) {
    std::size_t n = 0;
    while (n < rest.size() && detail::is_python_ident_char(rest[n])) ++n;
    const auto word = rest.substr(0, n);
    if (word == "True") return true;
    if (word == "False") return false;
    return std::nullopt;
}

std::optional<bool> keyed_bool(std::string_view text, std::string_view key) {
    for (auto rest : values_after_key(text, key))
        if (auto b = python_bool(rest)) return b;
    return std::nullopt;
}

/// `['sm_52', 'compute_90']` at the start of `rest`; nullopt unless it is a complete list of
/// string literals.
std::optional<std::vector<std::string>> string_list(std::string_view rest) {
    if (!rest.starts_with('[')) return std::nullopt;
    std::vector<std::string> out;
    rest = ltrim(rest.substr(1));
    while (!rest.empty() && rest.front() != ']') {
        std::size_t used = 0;
        auto s = read_python_string(rest, used, /*allow_triple=*/false);
        if (!s) return std::nullopt;
        out.push_back(std::move(*s));
        rest = ltrim(rest.substr(used));
        if (rest.starts_with(',')) rest = ltrim(rest.substr(1));
        else if (!rest.starts_with(']')) return std::nullopt;
    }
    if (rest.empty()) return std::nullopt;
    return out;
}

/// Windows builds name the DLL suffix: cuda '64_101' → "10.1", '64_92' → "9.2"; cudnn '64_7' → "7".
std::string from_dll_suffix(std::string_view value, bool insert_dot) {
    if (!value.starts_with("64_")) return std::string(value);
    value.remove_prefix(3);
    const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string_view::npos;
    if (!insert_dot || !digits || value.size() < 2) return std::string(value);
    return std::string(value.substr(0, value.size() - 1)) + "." + value.back();
}

/// "Name: torch" → {"name", "torch"} with the key lower-cased; nullopt for other lines.
std::optional<std::pair<std::string, std::string_view>> header_field(std::string_view line) {
    if (line.empty() || line.front() == ' ' || line.front() == '\t') return std::nullopt;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    return std::pair{text::to_lower(line.substr(0, colon)), text::trim(line.substr(colon + 1))};
}

}  // namespace

Expected<TorchVersionPy> parse_torch_version_py(std::string_view text) {
    TorchVersionPy out;
    auto version = first_assignment_string(text, "__version__");
    if (!version) return fail(Errc::parse, "no __version__ = '...' in torch/version.py");
    out.version = std::move(*version);
    out.cuda = first_assignment_string(text, "cuda");
    out.hip = first_assignment_string(text, "hip");
    out.git_version = first_assignment_string(text, "git_version").value_or("");
    return out;
}

Expected<TfBuildInfo> parse_tf_build_info(std::string_view text) {
    TfBuildInfo out;
    bool found = false;
    auto cuda = keyed_string(text, "cuda_version");
    if (!cuda) cuda = find_python_string_assignment(text, "cuda_version_number");
    if (cuda) {
        out.cuda_version = from_dll_suffix(*cuda, true);
        found = true;
    }
    auto cudnn = keyed_string(text, "cudnn_version");
    if (!cudnn) cudnn = find_python_string_assignment(text, "cudnn_version_number");
    if (cudnn) {
        out.cudnn_version = from_dll_suffix(*cudnn, false);
        found = true;
    }
    out.is_cuda_build = keyed_bool(text, "is_cuda_build");
    if (!out.is_cuda_build) {
        std::size_t next = 0;
        if (auto rhs = find_top_level_assignment(text, "is_cuda_build", 0, next)) out.is_cuda_build = python_bool(*rhs);
    }
    found = found || out.is_cuda_build.has_value();
    for (auto rest : values_after_key(text, "cuda_compute_capabilities")) {
        if (auto list = string_list(rest)) {
            out.cuda_compute_capabilities = std::move(*list);
            found = true;
            break;
        }
    }
    if (!found)
        return fail(Errc::parse,
                    "no cuda_version, cudnn_version, is_cuda_build or cuda_compute_capabilities "
                    "in build_info.py");
    return out;
}

Expected<DistMetadata> parse_dist_metadata(std::string_view text) {
    DistMetadata out;
    bool has_name = false;
    bool has_version = false;
    detail::LineReader reader(text);
    std::string_view line;
    while (reader.next(line) && !line.empty()) {
        const auto field = header_field(line);
        if (!field) continue;
        const auto& [key, value] = *field;
        if (key == "name" && !has_name) {
            out.name = std::string(value);
            has_name = true;
        } else if (key == "version" && !has_version) {
            out.version = std::string(value);
            has_version = true;
        } else if (key == "requires-dist") {
            out.requires_dist.emplace_back(value);
        }
    }
    if (!has_name || out.name.empty()) return fail(Errc::parse, "no Name: header in METADATA");
    return out;
}

std::optional<std::string> find_python_string_assignment(std::string_view text, std::string_view name) {
    std::size_t from = 0;
    std::size_t next = 0;
    while (auto rhs = find_top_level_assignment(text, name, from, next)) {
        std::size_t used = 0;
        const auto start = static_cast<std::size_t>(rhs->data() - text.data());
        if (auto s = read_python_string(text.substr(start), used)) return s;
        // An unclosed triple-quoted string runs to the end of the file: nothing after it is code
        // (and reading on from every later line would make a hostile file quadratic).
        const auto quote = rhs->find_first_of("'\"");
        if (quote <= 2 && rhs->substr(quote, 3) == std::string(3, (*rhs)[quote])) break;
        from = next;
    }
    return std::nullopt;
}

std::map<std::string, std::string> parse_pyvenv_cfg(std::string_view text) {
    std::map<std::string, std::string> out;
    detail::LineReader reader(text);
    std::string_view line;
    while (reader.next(line)) {
        const auto eq = line.find('=');
        if (eq == std::string_view::npos) continue;
        out[text::to_lower(text::trim(line.substr(0, eq)))] = std::string(text::trim(line.substr(eq + 1)));
    }
    return out;
}

}  // namespace cudoctor::formats
