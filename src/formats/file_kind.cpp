#include "formats/file_kind.hpp"

#include <algorithm>
#include <cctype>

#include "common/text.hpp"

namespace cudoctor::formats {
namespace {

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
    if (s.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
    return true;
}

std::string_view skip_bom_and_space(std::string_view s) {
    if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);
    while (!s.empty() && (s[0] == ' ' || s[0] == '\t' || s[0] == '\r' || s[0] == '\n')) s.remove_prefix(1);
    return s;
}

/// The Makeself banner sits in the first lines of every generation (formats.md 2.2).
bool has_makeself_banner(std::string_view head) {
    std::size_t pos = 0;
    for (int line = 0; line < 200 && pos < head.size(); ++line) {
        auto end = head.find('\n', pos);
        if (end == std::string_view::npos) end = head.size();
        if (head.substr(pos, end - pos).find("Makeself") != std::string_view::npos) return true;
        pos = end + 1;
    }
    return false;
}

bool looks_like_text(std::string_view s) {
    const auto sample = s.substr(0, 4096);
    std::size_t odd = 0;
    for (unsigned char c : sample)
        if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f')) ++odd;
    return odd == 0;
}

/// The text between `open` (a tag, matched without case) and the next '<'.
std::string_view between_tags(std::string_view s, std::string_view open) {
    const auto lower = text::to_lower(s.substr(0, 65536));
    const auto at = lower.find(open);
    if (at == std::string::npos) return {};
    const auto gt = lower.find('>', at);
    if (gt == std::string::npos) return {};
    const auto lt = lower.find('<', gt);
    return s.substr(gt + 1, (lt == std::string::npos ? lower.size() : lt) - gt - 1);
}

/// The string value of the first "key": "value" pair, without unescaping.
std::string_view json_string(std::string_view s, std::string_view key) {
    const auto at = s.find("\"" + std::string(key) + "\"");
    if (at == std::string_view::npos) return {};
    auto i = s.find(':', at);
    if (i == std::string_view::npos) return {};
    ++i;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    if (i >= s.size() || s[i] != '"') return {};
    const auto close = s.find('"', i + 1);
    if (close == std::string_view::npos) return {};
    return s.substr(i + 1, close - i - 1);
}

std::string clean(std::string_view s) {
    std::string out = text::printable(text::trim(s), 120);
    std::string squeezed;
    for (char c : out)
        if (!(c == ' ' && !squeezed.empty() && squeezed.back() == ' ')) squeezed += c;
    return squeezed;
}

}  // namespace

const char* to_string(FileKind kind) {
    switch (kind) {
        case FileKind::empty: return "empty";
        case FileKind::makeself: return "makeself";
        case FileKind::shell_script: return "shell-script";
        case FileKind::html: return "html";
        case FileKind::xml: return "xml";
        case FileKind::json: return "json";
        case FileKind::text: return "text";
        case FileKind::gzip: return "gzip";
        case FileKind::xz: return "xz";
        case FileKind::bzip2: return "bzip2";
        case FileKind::zstd: return "zstd";
        case FileKind::tar: return "tar";
        case FileKind::deb: return "deb";
        case FileKind::ar: return "ar";
        case FileKind::elf: return "elf";
        case FileKind::zip: return "zip";
        case FileKind::binary: break;
    }
    return "binary";
}

const char* describe(FileKind kind) {
    switch (kind) {
        case FileKind::empty: return "an empty file";
        case FileKind::makeself: return "a makeself self-extracting archive";
        case FileKind::shell_script: return "a shell script without a makeself archive";
        case FileKind::html: return "an HTML page";
        case FileKind::xml: return "an XML document";
        case FileKind::json: return "a JSON document";
        case FileKind::text: return "a text file";
        case FileKind::gzip: return "a gzip stream";
        case FileKind::xz: return "an xz stream";
        case FileKind::bzip2: return "a bzip2 stream";
        case FileKind::zstd: return "a zstd stream";
        case FileKind::tar: return "an uncompressed tar archive";
        case FileKind::deb: return "a Debian package (ar archive)";
        case FileKind::ar: return "an ar archive";
        case FileKind::elf: return "an ELF binary";
        case FileKind::zip: return "a zip archive";
        case FileKind::binary: break;
    }
    return "binary data of no known kind";
}

FileKind detect_file_kind(std::string_view head) {
    if (head.empty()) return FileKind::empty;
    if (head.starts_with("\177ELF")) return FileKind::elf;
    if (head.starts_with(kArMagic)) {
        auto first = parse_ar_member_header(head.substr(kArMagic.size()));
        return first && first->name == "debian-binary" ? FileKind::deb : FileKind::ar;
    }
    if (head.starts_with("\x1f\x8b")) return FileKind::gzip;
    if (head.starts_with(std::string_view("\xfd"
                                          "7zXZ\0",
                                          6)))
        return FileKind::xz;
    if (head.starts_with("BZh")) return FileKind::bzip2;
    if (head.starts_with("\x28\xb5\x2f\xfd")) return FileKind::zstd;
    if (head.starts_with("PK\x03\x04") || head.starts_with("PK\x05\x06")) return FileKind::zip;
    if (head.size() >= 262 && head.substr(257, 5) == "ustar") return FileKind::tar;
    if (head.starts_with("#!")) return has_makeself_banner(head) ? FileKind::makeself : FileKind::shell_script;
    const auto body = skip_bom_and_space(head);
    if (starts_with_nocase(body, "<!doctype html") || starts_with_nocase(body, "<html") || starts_with_nocase(body, "<head") ||
        starts_with_nocase(body, "<body"))
        return FileKind::html;
    if (starts_with_nocase(body, "<?xml") || starts_with_nocase(body, "<error")) {
        // An XHTML page also starts "<?xml": its root element decides.
        const auto lower = text::to_lower(body.substr(0, 4096));
        return lower.find("<html") != std::string::npos ? FileKind::html : FileKind::xml;
    }
    if (body.starts_with("<!--") && text::to_lower(body.substr(0, 4096)).find("<html") != std::string::npos) return FileKind::html;
    if (!body.empty() && (body[0] == '{' || body[0] == '[') && looks_like_text(head)) return FileKind::json;
    return looks_like_text(head) ? FileKind::text : FileKind::binary;
}

std::string text_excerpt(std::string_view head) {
    const auto body = skip_bom_and_space(head.substr(0, 65536));
    if (auto t = between_tags(body, "<title"); !text::trim(t).empty()) return clean(t);
    if (auto code = between_tags(body, "<code>"); !text::trim(code).empty()) {
        auto message = between_tags(body, "<message>");
        return clean(text::trim(message).empty() ? code : std::string(code) + ": " + std::string(message));
    }
    for (std::string_view key : {"message", "error", "detail", "title"})
        if (auto v = json_string(body, key); !text::trim(v).empty()) return clean(v);
    for (auto line : text::lines(body.substr(0, 4096)))
        if (!text::trim(line).empty()) return clean(line);
    return {};
}

Expected<ArMember> parse_ar_member_header(std::string_view bytes) {
    if (bytes.size() < kArMemberHeaderSize)
        return fail(Errc::truncated, "ar member header cut short: " + std::to_string(bytes.size()) + " of 60 bytes");
    const auto h = bytes.substr(0, kArMemberHeaderSize);
    if (h.substr(58, 2) != "`\n") return fail(Errc::parse, "ar member header has no \"`\\n\" terminator");
    ArMember m;
    auto name = h.substr(0, 16);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.size() > 1 && name.back() == '/') name.remove_suffix(1);
    m.name = std::string(name);
    auto size = text::trim(h.substr(48, 10));
    if (size.empty()) return fail(Errc::parse, "ar member \"" + text::printable(m.name) + "\" has no size");
    for (char c : size) {
        if (c < '0' || c > '9') return fail(Errc::parse, "ar member \"" + text::printable(m.name) + "\" has a size that is not a number");
        m.size = m.size * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return m;
}

}  // namespace cudoctor::formats
