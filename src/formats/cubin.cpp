#include "formats/cubin.hpp"

#include <optional>
#include <set>

#include "formats/byte_reader.hpp"
#include "formats/elf.hpp"

namespace cudoctor::formats {
namespace {

constexpr std::uint32_t kSectionSymtab = 2;  // SHT_SYMTAB
constexpr std::uint64_t kSymbolSize = 24;    // Elf64_Sym
constexpr std::uint8_t kSymbolFunc = 2;      // STT_FUNC
constexpr std::uint16_t kSectionUndefined = 0;
// A kernel name longer than this is corruption (CUTLASS's longest are a few thousand bytes).
constexpr std::uint64_t kMaxSymbolName = 64 * 1024;

bool ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '$' || c == '%'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/// Calls `take(name, symbol)` for each symbol of each SHT_SYMTAB of `elf` that `wanted(info,
/// other, shndx)` keeps; the first bad table or name ends it with an error worded with `what`
/// ("corrupt cubin", "corrupt ELF").
template <class Wanted, class Take>
std::optional<Error> each_symbol(std::string_view file, const ElfFile& elf, const std::string& what, Wanted wanted, Take take) {
    auto bad = [&](const std::string& why) { return Error{Errc::parse, what + ": " + why}; };
    for (const auto& symtab : elf.sections) {
        if (symtab.type != kSectionSymtab) continue;
        if (symtab.size % kSymbolSize != 0)
            return bad("symbol table of " + std::to_string(symtab.size) + " bytes is not a whole number of 24-byte entries");
        if (symtab.link == 0 || symtab.link >= elf.sections.size())
            return bad("the symbol table links to string table " + std::to_string(symtab.link) + " of " +
                       std::to_string(elf.sections.size()) + " sections");
        auto symbols = section_bytes(file, symtab);
        if (!symbols) return symbols.error();
        auto strings = section_bytes(file, elf.sections[symtab.link]);
        if (!strings) return strings.error();
        const ByteReader in(*symbols);
        for (std::uint64_t at = 0; at < in.size(); at += kSymbolSize) {
            const std::uint32_t name = *in.u32(at);
            const auto info = static_cast<std::uint8_t>((*symbols)[at + 4]);
            const auto other = static_cast<std::uint8_t>((*symbols)[at + 5]);
            const std::uint16_t shndx = *in.u16(at + 6);
            if (!wanted(info, other, shndx)) continue;
            const std::uint64_t index = at / kSymbolSize;
            if (name >= strings->size())
                return bad("symbol " + std::to_string(index) + " names offset " + std::to_string(name) + ", outside the string table (" +
                           std::to_string(strings->size()) + " bytes)");
            const auto rest = strings->substr(name, kMaxSymbolName);
            const auto nul = rest.find('\0');
            if (nul == std::string_view::npos) return bad("the name of symbol " + std::to_string(index) + " has no terminating NUL");
            take(rest.substr(0, nul), index);
        }
    }
    return std::nullopt;
}

bool defined_function(std::uint8_t info, std::uint16_t shndx) { return (info & 0xf) == kSymbolFunc && shndx != kSectionUndefined; }

/// "__device_stub__Z7add_onePfi" inside a stub's symbol "_Z27__device_stub__Z7add_onePfiPfi"
/// (or "_ZL51…" for a kernel of internal linkage): the kernel's own mangled name
/// "_Z7add_onePfi"; "" when `symbol` is no stub.
std::string_view stub_target(std::string_view symbol) {
    constexpr std::string_view kStub = "__device_stub_";
    if (!symbol.starts_with("_Z")) return {};
    std::size_t i = 2;
    if (i < symbol.size() && symbol[i] == 'L') ++i;
    std::size_t length = 0, digits = 0;
    while (i < symbol.size() && symbol[i] >= '0' && symbol[i] <= '9' && digits < 6) {
        length = length * 10 + static_cast<std::size_t>(symbol[i] - '0');
        ++i;
        ++digits;
    }
    if (digits == 0 || length > symbol.size() - i) return {};
    const auto ident = symbol.substr(i, length);
    if (!ident.starts_with(kStub) || ident.size() < kStub.size() + 3 || !ident.substr(kStub.size()).starts_with("_Z")) return {};
    return ident.substr(kStub.size());
}

/// The plain identifier of a simple mangled name "_Z7add_onePfi" → "add_one"; "" otherwise.
std::string_view plain_identifier(std::string_view mangled) {
    std::size_t i = 2, length = 0, digits = 0;
    while (i < mangled.size() && mangled[i] >= '0' && mangled[i] <= '9' && digits < 6) {
        length = length * 10 + static_cast<std::size_t>(mangled[i] - '0');
        ++i;
        ++digits;
    }
    if (digits == 0 || length == 0 || length > mangled.size() - i) return {};
    return mangled.substr(i, length);
}

}  // namespace

Expected<std::vector<std::string>> cubin_kernels(std::string_view cubin) {
    auto elf = parse_elf(cubin);
    if (!elf) return Unexpected<Error>(elf.error());
    if (elf->machine != kElfMachineCuda)
        return fail(Errc::parse, "not a cubin: ELF machine " + std::to_string(elf->machine) + " (expected 190, CUDA)");
    std::vector<std::string> kernels;
    std::set<std::string, std::less<>> seen;
    std::optional<Error> empty_name;
    auto entry = [](std::uint8_t info, std::uint8_t other, std::uint16_t shndx) {
        return defined_function(info, shndx) && (other & kCudaEntryFlag) != 0;
    };
    auto error = each_symbol(cubin, *elf, "corrupt cubin", entry, [&](std::string_view name, std::uint64_t index) {
        if (name.empty() && !empty_name)
            empty_name = Error{Errc::parse, "corrupt cubin: entry function symbol " + std::to_string(index) + " has an empty name"};
        if (!name.empty() && seen.insert(std::string(name)).second) kernels.emplace_back(name);
    });
    if (error) return Unexpected<Error>(*error);
    if (empty_name) return Unexpected<Error>(*empty_name);
    return kernels;
}

Expected<std::vector<std::string>> host_stub_kernels(std::string_view file) {
    auto elf = parse_elf(file);
    if (!elf) return Unexpected<Error>(elf.error());
    std::vector<std::string> mangled;
    std::set<std::string, std::less<>> seen;
    auto function = [](std::uint8_t info, std::uint8_t, std::uint16_t shndx) { return defined_function(info, shndx); };
    auto error = each_symbol(file, *elf, "corrupt ELF", function, [&](std::string_view name, std::uint64_t) {
        const auto target = stub_target(name);
        if (!target.empty() && seen.insert(std::string(target)).second) mangled.emplace_back(target);
    });
    if (error) return Unexpected<Error>(*error);
    if (mangled.empty()) return mangled;
    // The registration passes each device name as a string constant: extern "C" kernels are
    // known by their plain name there.
    std::set<std::string_view> strings;
    for (const auto& rodata : elf->sections) {
        if (rodata.name != ".rodata" && !rodata.name.starts_with(".rodata.")) continue;  // .rodata.str1.1 in some objects
        if (auto bytes = section_bytes(file, rodata)) {
            std::size_t begin = 0;
            for (std::size_t i = 0; i < bytes->size(); ++i) {
                if ((*bytes)[i] != '\0') continue;
                if (i > begin) strings.insert(bytes->substr(begin, i - begin));
                begin = i + 1;
            }
        }
    }
    std::vector<std::string> kernels;
    kernels.reserve(mangled.size());
    for (auto& m : mangled) {
        const auto plain = plain_identifier(m);
        if (!plain.empty() && !strings.contains(m) && strings.contains(plain)) kernels.emplace_back(plain);
        else kernels.push_back(std::move(m));
    }
    return kernels;
}

namespace {

/// The name after the `.entry` that ends at `after`, or nullopt when none follows.
std::optional<std::string_view> entry_name(std::string_view ptx, std::size_t after) {
    std::size_t k = after;
    while (k < ptx.size() && space(ptx[k])) ++k;
    if (k == after || k >= ptx.size() || !ident_start(ptx[k])) return std::nullopt;
    std::size_t e = k;
    while (e < ptx.size() && ident_char(ptx[e])) ++e;
    return ptx.substr(k, e - k);
}

/// True when the directive at `at` stands in a `//` comment or a quoted string of its line.
bool commented_or_quoted(std::string_view ptx, std::size_t at) {
    const auto nl = ptx.rfind('\n', at);
    const std::size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
    bool quoted = false;
    for (std::size_t i = begin; i < at; ++i) {
        if (ptx[i] == '"') quoted = !quoted;
        else if (!quoted && ptx[i] == '/' && i + 1 < at && ptx[i + 1] == '/') return true;
    }
    return quoted;
}

/// True when some line holds an odd number of quotes (a string would run on to the next line).
bool string_spans_lines(std::string_view ptx) {
    for (auto q = ptx.find('"'); q != std::string_view::npos;) {
        const auto close = ptx.find('"', q + 1);
        if (close == std::string_view::npos) return true;
        const auto nl = ptx.find('\n', q + 1);
        if (nl != std::string_view::npos && nl < close) return true;
        q = ptx.find('"', close + 1);
    }
    return false;
}

struct PtxScan {
    std::vector<std::string> entries;
    bool version = false;
    std::optional<std::size_t> bad_entry;  ///< offset of an .entry with no name
};

/// Every character in turn: exact for block comments and strings that span lines.
PtxScan scan_every_char(std::string_view ptx) {
    PtxScan out;
    std::set<std::string, std::less<>> seen;
    std::size_t i = 0;
    const std::size_t n = ptx.size();
    while (i < n) {
        const char c = ptx[i];
        if (c == '/' && i + 1 < n && ptx[i + 1] == '/') {
            const auto eol = ptx.find('\n', i);
            i = eol == std::string_view::npos ? n : eol + 1;
        } else if (c == '/' && i + 1 < n && ptx[i + 1] == '*') {
            const auto close = ptx.find("*/", i + 2);
            i = close == std::string_view::npos ? n : close + 2;
        } else if (c == '"') {
            const auto close = ptx.find('"', i + 1);
            i = close == std::string_view::npos ? n : close + 1;
        } else if (c == '.' && (i == 0 || !ident_char(ptx[i - 1]))) {
            std::size_t j = i + 1;
            while (j < n && ident_char(ptx[j])) ++j;
            const auto directive = ptx.substr(i, j - i);
            if (directive == ".version") out.version = true;
            if (directive == ".entry") {
                const auto name = entry_name(ptx, j);
                if (!name) {
                    out.bad_entry = i;
                    return out;
                }
                if (seen.insert(std::string(*name)).second) out.entries.emplace_back(*name);
                j = name->data() + name->size() - ptx.data();
            }
            i = j;
        } else {
            ++i;
        }
    }
    return out;
}

/// The same answer for text without block comments or strings that span lines (what nvcc
/// writes), found by searching for the directives instead of walking every character: PTX is
/// the bulk of what `kernels` reads after decompression (237 MB in cuBLASLt 13.0).
PtxScan scan_directives(std::string_view ptx) {
    PtxScan out;
    std::set<std::string, std::less<>> seen;
    auto directive_at = [&](std::size_t at, std::string_view word) {
        const std::size_t after = at + word.size();
        return (at == 0 || !ident_char(ptx[at - 1])) && (after >= ptx.size() || !ident_char(ptx[after])) && !commented_or_quoted(ptx, at);
    };
    for (auto at = ptx.find(".version"); at != std::string_view::npos && !out.version; at = ptx.find(".version", at + 1))
        out.version = directive_at(at, ".version");
    for (auto at = ptx.find(".entry"); at != std::string_view::npos; at = ptx.find(".entry", at + 1)) {
        if (!directive_at(at, ".entry")) continue;
        const auto name = entry_name(ptx, at + 6);
        if (!name) {
            out.bad_entry = at;
            return out;
        }
        if (seen.insert(std::string(*name)).second) out.entries.emplace_back(*name);
    }
    return out;
}

}  // namespace

Expected<std::vector<std::string>> ptx_entries(std::string_view ptx) {
    // The fatbin pads PTX with NULs; a NUL before the padding is binary data, not PTX.
    const auto end = ptx.find_last_not_of('\0');
    ptx = end == std::string_view::npos ? std::string_view() : ptx.substr(0, end + 1);
    if (const auto nul = ptx.find('\0'); nul != std::string_view::npos)
        return fail(Errc::parse, "not PTX text: a NUL byte at offset " + std::to_string(nul));
    const bool simple = ptx.find("/*") == std::string_view::npos && !string_spans_lines(ptx);
    auto scan = simple ? scan_directives(ptx) : scan_every_char(ptx);
    if (scan.bad_entry)
        return fail(Errc::parse, "corrupt PTX: .entry at offset " + std::to_string(*scan.bad_entry) + " is not followed by a name");
    if (!scan.version) return fail(Errc::parse, "not PTX text: no .version directive");
    return std::move(scan.entries);
}

}  // namespace cudoctor::formats
