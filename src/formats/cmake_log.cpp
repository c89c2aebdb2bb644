#include "formats/cmake_log.hpp"

#include <algorithm>
#include <cctype>

#include "common/text.hpp"

namespace cudoctor::formats {
namespace {

std::string cut(std::string_view s) { return std::string(s.substr(0, OpencvBuildLog::kMaxValue)); }

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
}

/// Drops what CI systems and CMake put before a message: BuildKit's "#14 23.50 ", a quote "> ",
/// and CMake's "-- " (or a lone "--"). Leading spaces after those are kept: they are the
/// summary's indentation.
std::string_view strip_prefixes(std::string_view line) {
    for (int round = 0; round < 4; ++round) {
        std::string_view s = line;
        std::size_t i = 0;
        while (i < s.size() && text::is_blank(s[i])) ++i;
        const std::string_view rest = s.substr(i);
        if (rest.starts_with('#') && rest.size() > 1 && text::is_digit(rest[1])) {
            std::size_t j = 1;
            while (j < rest.size() && text::is_digit(rest[j])) ++j;
            if (j < rest.size() && rest[j] == ' ') {
                std::size_t k = j + 1;
                while (k < rest.size() && (text::is_digit(rest[k]) || rest[k] == '.')) ++k;
                if (k > j + 1 && (k == rest.size() || rest[k] == ' ')) {
                    line = rest.substr(std::min(k + 1, rest.size()));
                    continue;
                }
            }
        }
        if (rest.starts_with("> ") || rest == ">") {
            line = rest.substr(std::min<std::size_t>(2, rest.size()));
            continue;
        }
        if (rest.starts_with("-- ") || rest == "--") {
            line = rest.substr(std::min<std::size_t>(3, rest.size()));
            continue;
        }
        break;
    }
    return line;
}

std::size_t indent_of(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size() && text::is_blank(s[i])) ++i;
    return i;
}

/// "key: value" of a summary line; nullopt when the line has no ':' or the key looks like a
/// sentence rather than a label (labels are short).
struct KeyValue {
    std::string_view key;
    std::string_view value;
};
std::optional<KeyValue> key_value(std::string_view body) {
    const auto colon = body.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 48) return std::nullopt;
    const std::string_view key = text::trim(body.substr(0, colon));
    if (key.empty()) return std::nullopt;
    // "D:/x" at the start, or "http://": not a label
    if (colon + 1 < body.size() && body[colon + 1] == '/') return std::nullopt;
    return KeyValue{key, text::trim(body.substr(colon + 1))};
}

std::vector<std::string> words(std::string_view value, std::size_t cap) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < value.size() && out.size() < cap) {
        while (i < value.size() && (text::is_blank(value[i]) || value[i] == ',' || value[i] == ';')) ++i;
        const std::size_t start = i;
        while (i < value.size() && !text::is_blank(value[i]) && value[i] != ',' && value[i] != ';') ++i;
        if (i > start) out.push_back(cut(value.substr(start, i - start)));
    }
    return out;
}

/// A module list: "-" means none.
std::vector<std::string> modules(std::string_view value) {
    if (value == "-" || value == "NO") return {};
    return words(value, OpencvBuildLog::kMaxModules);
}

/// "YES (ver 12.0, CUFFT CUBLAS FAST_MATH)" → yes, "12.0", {CUFFT, CUBLAS, FAST_MATH}.
void yes_version(std::string_view value, bool& yes, std::string& version, std::vector<std::string>* features) {
    yes = value.starts_with("YES");
    const auto open = value.find('(');
    const auto close = value.rfind(')');
    if (open == std::string_view::npos) return;
    std::string_view inside =
        value.substr(open + 1, close == std::string_view::npos || close < open ? std::string_view::npos : close - open - 1);
    inside = text::trim(inside);
    if (inside.starts_with("ver ")) {
        inside.remove_prefix(4);
        std::size_t end = 0;
        while (end < inside.size() && inside[end] != ',' && !text::is_blank(inside[end])) ++end;
        version = cut(inside.substr(0, end));
        inside.remove_prefix(end);
        if (!inside.empty() && inside.front() == ',') inside.remove_prefix(1);
    }
    if (features) {
        inside = text::trim(inside);
        if (inside != "no extra features") *features = words(inside, 64);
    }
}

/// "Found CUDNN: /usr/… (found …)" and "Could NOT find CUDNN (missing: …) …".
std::optional<CmakeFind> find_record(std::string_view body) {
    body = text::trim(body);
    if (body.starts_with("Could NOT find ")) {
        std::string_view rest = body.substr(15);
        std::size_t end = 0;
        while (end < rest.size() && !text::is_blank(rest[end])) ++end;
        return CmakeFind{cut(rest.substr(0, end)), false, cut(text::trim(rest.substr(end)))};
    }
    if (body.starts_with("Found ")) {
        std::string_view rest = body.substr(6);
        const auto colon = rest.find(':');
        if (colon == std::string_view::npos || colon == 0 || colon > 40) return std::nullopt;
        const std::string_view name = rest.substr(0, colon);
        if (std::any_of(name.begin(), name.end(), text::is_blank)) return std::nullopt;
        return CmakeFind{cut(name), true, cut(text::trim(rest.substr(colon + 1)))};
    }
    return std::nullopt;
}

/// "CMake Error at FILE:LINE (cmd):" → "FILE:LINE (cmd)"; "CMake Error: text" → {"", text}.
struct MessageStart {
    bool error = false;
    std::string where;
    std::string inline_text;
};
std::optional<MessageStart> message_start(std::string_view body) {
    body = text::trim(body);
    for (const auto& [prefix, error] :
         {std::pair{std::string_view("CMake Error"), true}, std::pair{std::string_view("CMake Warning"), false}}) {
        if (!body.starts_with(prefix)) continue;
        std::string_view rest = body.substr(prefix.size());
        if (rest.starts_with(" (dev)")) rest.remove_prefix(6);
        if (rest.starts_with(" at ")) {
            rest.remove_prefix(4);
            if (rest.ends_with(':')) rest.remove_suffix(1);
            return MessageStart{error, cut(rest), ""};
        }
        if (rest.starts_with(':')) return MessageStart{error, "", cut(text::trim(rest.substr(1)))};
    }
    return std::nullopt;
}

/// Which block of the summary the following indented lines belong to.
enum class Block { none, python2, python3 };

}  // namespace

bool OpencvPythonBlock::numpy_found() const { return !numpy.empty() && !numpy.starts_with("NO"); }
bool OpencvPythonBlock::libraries_found() const { return !libraries.empty() && !libraries.starts_with("NO"); }

bool OpencvBuildLog::builds(std::string_view module) const {
    return std::find(to_be_built.begin(), to_be_built.end(), module) != to_be_built.end();
}

const CmakeFind* OpencvBuildLog::find(std::string_view package) const {
    for (const auto& f : finds)
        if (iequals(f.package, package)) return &f;
    return nullptr;
}

namespace {

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// "[ 45%] Building …" (make) or "[12/300] Building …" (ninja).
bool build_progress(std::string_view t) {
    if (!t.starts_with("[")) return false;
    const auto close = t.find(']');
    if (close > 16) return false;  // npos too: a counter is short
    const auto inside = text::trim(t.substr(1, close - 1));
    const auto rest = text::trim(t.substr(close + 1));
    const bool counter = (inside.ends_with("%") && all_digits(text::trim(inside.substr(0, inside.size() - 1)))) ||
                         (inside.find('/') != std::string_view::npos && all_digits(inside.substr(0, inside.find('/'))) &&
                          all_digits(inside.substr(inside.find('/') + 1)));
    return counter && (rest.starts_with("Building") || rest.starts_with("Linking") || rest.starts_with("Built target"));
}

bool compiler_was_killed(std::string_view t) {
    return text::contains(t, "Killed signal terminated program") || text::contains(t, "internal compiler error: Killed") ||
           text::contains(t, "died due to signal 9") || t == "Killed";
}

bool compile_error(std::string_view t) {
    if (t.starts_with("make") || t.starts_with("CMake Error") || t.starts_with("ninja:") || t.starts_with("gmake")) return false;
    return text::contains(t, ": error: ") || t.starts_with("error: ") || text::contains(t, "fatal error: ") ||
           t.starts_with("nvcc fatal") || text::contains(t, ": fatal error ") || text::contains(t, "(error) ") ||
           text::contains(t, ") : error ") || text::contains(t, "): error: ") || text::contains(t, "undefined reference to ");
}

/// Records what a build line says (progress, a killed compiler, the first error, a missing
/// header); true when the line is consumed.
bool read_build_line(std::string_view t, std::size_t line_no, OpencvBuildLog& log) {
    if (build_progress(t)) {
        log.build_output = true;
        return true;
    }
    if (t.starts_with("Building NVCC (Device) object") || t.starts_with("Building NVCC intermediate link file")) {
        log.build_output = true;
        return true;
    }
    if (compiler_was_killed(t)) {
        if (log.compiler_killed.empty()) {
            log.compiler_killed = cut(t);
            log.compiler_killed_line = line_no;
        }
        return true;
    }
    if (!compile_error(t)) return false;
    if (log.first_error.empty()) {
        log.first_error = cut(t);
        log.first_error_line = line_no;
    }
    // "fatal error: cudnn.h: No such file or directory"
    constexpr std::string_view kFatal = "fatal error: ";
    if (const auto at = t.find(kFatal); at != std::string_view::npos && log.missing_header.empty()) {
        const auto rest = t.substr(at + kFatal.size());
        const auto colon = rest.find(": No such file or directory");
        if (colon < 200) log.missing_header = cut(rest.substr(0, colon));  // npos too: no such message
    }
    return true;
}

}  // namespace

OpencvBuildLog parse_opencv_build_log(std::string_view text) {
    OpencvBuildLog log;
    // Never reallocated: open_message points into them.
    log.errors.reserve(OpencvBuildLog::kMaxItems);
    log.warnings.reserve(OpencvBuildLog::kMaxItems);
    Block block = Block::none;
    std::size_t block_indent = 0;
    CmakeMessage* open_message = nullptr;  // collecting the indented lines of a CMake Error/Warning
    std::size_t line_no = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find_first_of("\r\n", pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view raw = text.substr(pos, end - pos);
        pos = end < text.size() && text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n' ? end + 2 : end + 1;
        ++line_no;

        const std::string_view body = strip_prefixes(raw);
        const std::string_view trimmed = text::trim(body);

        // The indented lines after "CMake Error at …:" are its message; a blank or unindented line ends it.
        if (open_message) {
            if (!trimmed.empty() && indent_of(body) > 0 && !trimmed.starts_with("Call Stack")) {
                if (open_message->text.size() < OpencvBuildLog::kMaxValue) {
                    if (!open_message->text.empty()) open_message->text += ' ';
                    open_message->text += cut(trimmed);
                    if (open_message->text.size() > OpencvBuildLog::kMaxValue) open_message->text.resize(OpencvBuildLog::kMaxValue);
                }
                continue;
            }
            if (!trimmed.empty() || !open_message->text.empty()) open_message = nullptr;
            if (trimmed.empty()) continue;
        }
        if (trimmed.empty()) continue;
        if (read_build_line(trimmed, line_no, log)) continue;

        if (auto start = message_start(body)) {
            auto& list = start->error ? log.errors : log.warnings;
            if (list.size() < OpencvBuildLog::kMaxItems) {
                list.push_back({start->where, start->inline_text, line_no});
                if (start->inline_text.empty()) open_message = &list.back();
            }
            continue;
        }
        if (trimmed.starts_with("General configuration for OpenCV")) {
            log.has_summary = true;
            std::string_view rest = text::trim(trimmed.substr(32));
            std::size_t end_v = 0;
            while (end_v < rest.size() && !text::is_blank(rest[end_v]) && rest[end_v] != '=') ++end_v;
            log.opencv_version = cut(rest.substr(0, end_v));
            continue;
        }
        if (auto f = find_record(trimmed)) {
            if (log.finds.size() < OpencvBuildLog::kMaxItems) log.finds.push_back(std::move(*f));
            continue;
        }
        if (trimmed.starts_with("CUDA detected:")) {
            log.cuda_detected = cut(text::trim(trimmed.substr(14)));
            continue;
        }
        if (trimmed.starts_with("CUDA NVCC target flags:")) {
            log.nvcc_target_flags = cut(text::trim(trimmed.substr(23)));
            continue;
        }
        if (trimmed.starts_with("CUDA: Not detected")) {
            log.cuda_not_detected = true;
            continue;
        }
        if (trimmed.starts_with("Automatic detection of CUDA generation failed")) {
            log.arch_autodetect_failed = true;
            continue;
        }
        if (trimmed.starts_with("Configuring incomplete")) {
            log.configuring_incomplete = true;
            continue;
        }
        if (trimmed.starts_with("Configuring done")) {
            log.configuring_done = true;
            continue;
        }

        const auto kv = key_value(body);
        if (!kv) continue;
        const std::size_t indent = indent_of(body);
        if (block != Block::none && indent <= block_indent) block = Block::none;

        const std::string_view key = kv->key;
        const std::string_view value = kv->value;
        if (block != Block::none) {
            auto& py = block == Block::python2 ? *log.python2 : *log.python3;
            if (key == "Interpreter") py.interpreter = cut(value);
            else if (key == "Libraries") py.libraries = cut(value);
            else if (key == "numpy") py.numpy = cut(value);
            else if (key == "install path" || key == "packages path") py.install_path = cut(value);
            continue;
        }
        if (key == "Python 2" || key == "Python 3") {
            block = key == "Python 2" ? Block::python2 : Block::python3;
            block_indent = indent;
            (block == Block::python2 ? log.python2 : log.python3).emplace();
        } else if (key == "NVIDIA CUDA" || key == "Use Cuda") {
            log.has_cuda_line = true;
            yes_version(value, log.cuda, log.cuda_version, &log.cuda_features);
        } else if (key == "NVIDIA GPU arch") {
            log.has_gpu_arch_line = true;
            log.gpu_archs = words(value, 64);
        } else if (key == "NVIDIA PTX archs") {
            log.ptx_archs = words(value, 64);
        } else if (key == "cuDNN") {
            log.has_cudnn_line = true;
            yes_version(value, log.cudnn, log.cudnn_version, nullptr);
        } else if (key == "To be built") {
            log.to_be_built = modules(value);
        } else if (key == "Disabled") {
            log.disabled = modules(value);
        } else if (key == "Disabled by dependency") {
            log.disabled_by_dependency = modules(value);
        } else if (key == "Unavailable") {
            log.unavailable = modules(value);
        } else if (key == "Python (for build)") {
            log.python_for_build = cut(value);
        } else if (key == "C++ Compiler") {
            log.cxx_compiler = cut(value);
        } else if (key == "Install to") {
            log.install_to = cut(value);
        }
    }
    log.lines = line_no;
    return log;
}

}  // namespace cudoctor::formats
