#include "gpucode/scan.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "formats/byte_reader.hpp"
#include "formats/elf.hpp"
#include "formats/fatbin.hpp"
#include "host/mapped_file.hpp"

namespace cudoctor::gpucode {
namespace {

constexpr std::array kRegisteredSections = {std::string_view(".nv_fatbin"), std::string_view("__nv_relfatbin")};
constexpr std::uint32_t kProgbits = 1;

bool is_registered(std::string_view name) {
    return std::find(kRegisteredSections.begin(), kRegisteredSections.end(), name) != kRegisteredSections.end();
}

/// Data sections that may embed fatbins loaded through the module API: bytes in the file, not
/// code, and not one of the toolchain's own tables (unwind info, GOT, debug info, …).
bool may_embed_fatbins(const formats::ElfSection& s) {
    if (s.type != kProgbits || (s.flags & formats::kElfFlagExec) || is_registered(s.name)) return false;
    static constexpr std::array kToolchainSections = {std::string_view(".eh_frame"),         std::string_view(".eh_frame_hdr"),
                                                      std::string_view(".gcc_except_table"), std::string_view(".got"),
                                                      std::string_view(".got.plt"),          std::string_view(".comment"),
                                                      std::string_view(".interp"),           std::string_view(".nvFatBinSegment"),
                                                      std::string_view("__nv_module_id"),    std::string_view(".data.rel.ro"),
                                                      std::string_view(".tm_clone_table"),   std::string_view(".note.GNU-stack")};
    if (std::find(kToolchainSections.begin(), kToolchainSections.end(), s.name) != kToolchainSections.end()) return false;
    return !s.name.starts_with(".debug") && !s.name.starts_with(".gnu");
}

void add_containers(FileScan& scan, SectionScan& section, const std::vector<formats::FatbinContainer>& containers) {
    for (const auto& c : containers) {
        Module m{section.name, section.embedded, {}, c.entries};
        m.images.reserve(c.entries.size());
        for (const auto& e : c.entries) m.images.push_back(image_of(e));
        section.images += m.images.size();
        ++section.modules;
        scan.modules.push_back(std::move(m));
    }
}

void scan_registered(std::string_view bytes, const formats::ElfSection& s, FileScan& scan) {
    SectionScan section{s.name, false, 0, 0, {}};
    auto data = formats::section_bytes(bytes, s);
    if (!data) {
        section.error = data.error().message;
    } else {
        auto walk = formats::walk_fatbin_section(*data, s.offset);
        add_containers(scan, section, walk.containers);
        if (walk.error) section.error = walk.error->message;
    }
    if (!section.error.empty()) scan.problems.push_back(s.name + ": " + section.error);
    if (section.modules || !section.error.empty()) scan.sections.push_back(std::move(section));
}

void scan_embedded(std::string_view data, std::string name, std::uint64_t offset, FileScan& scan) {
    SectionScan section{std::move(name), true, 0, 0, {}};
    add_containers(scan, section, formats::find_embedded_fatbins(data, offset));
    if (section.modules) scan.sections.push_back(std::move(section));
}

}  // namespace

std::vector<std::vector<Image>> FileScan::module_images() const {
    std::vector<std::vector<Image>> out;
    out.reserve(modules.size());
    for (const auto& m : modules) out.push_back(m.images);
    return out;
}

std::vector<TargetSummary> summarize(const FileScan& scan) {
    auto order = [](const Image& i) {
        const int kind = i.kind == formats::FatbinKind::sass     ? 0
                         : i.kind == formats::FatbinKind::ptx    ? 1
                         : i.kind == formats::FatbinKind::lto_ir ? 2
                                                                 : 3;
        return std::tuple(kind, i.arch, i.variant);
    };
    std::map<std::tuple<int, std::uint32_t, char>, TargetSummary> by_target;
    for (const auto& m : scan.modules) {
        for (const auto& image : m.images) {
            auto& t = by_target[order(image)];
            if (t.images == 0) {
                t.target = Image{image.kind, image.arch, image.variant, 0, 0, formats::FatbinCompression::none};
                t.name = target_name(t.target);
            }
            ++t.images;
            if (image.compression != formats::FatbinCompression::none) {
                ++t.compressed;
                const std::string c = formats::to_string(image.compression);
                if (t.compression.find(c) == std::string::npos) t.compression += (t.compression.empty() ? "" : "+") + c;
            }
            if (image.kind == formats::FatbinKind::ptx) {
                const std::string isa = std::to_string(image.ptx_major) + "." + std::to_string(image.ptx_minor);
                if (t.ptx_isa.empty() || Version::parse(isa) > Version::parse(t.ptx_isa)) t.ptx_isa = isa;
            }
            (m.embedded ? t.embedded : t.registered) = true;
        }
    }
    std::vector<TargetSummary> out;
    out.reserve(by_target.size());
    for (auto& [key, t] : by_target) out.push_back(std::move(t));
    return out;
}

Expected<FileScan> scan_elf_bytes(std::string_view bytes, ScanDepth depth, const WillNeed& will_need) {
    auto elf = formats::parse_elf(bytes);
    if (!elf) return Unexpected<Error>(elf.error());
    if (will_need) prefetch_registered_headers(bytes, *elf, will_need);
    FileScan scan;
    scan.size = bytes.size();
    scan.kind = formats::elf_kind(*elf);
    scan.depth = depth;
    for (const auto& s : elf->sections)
        if (is_registered(s.name) && s.in_file()) scan_registered(bytes, s, scan);
    if (depth == ScanDepth::full) {
        for (const auto& s : elf->sections) {
            if (!may_embed_fatbins(s)) continue;
            auto data = formats::section_bytes(bytes, s);
            if (!data) {
                scan.problems.push_back(data.error().message);
                continue;
            }
            // The search reads the section front to back (bar the containers it hops over).
            if (will_need && !data->empty()) will_need(s.offset, s.size, true);
            scan_embedded(*data, s.name, s.offset, scan);
        }
        if (elf->sections.empty()) {
            // No section headers: search the loaded data segments instead.
            for (const auto& p : elf->segments) {
                if (p.type != formats::kElfSegmentLoad || (p.flags & formats::kElfSegmentExec)) continue;
                const auto range = formats::ByteReader(bytes).range(p.offset, p.file_size);
                if (!range) {
                    scan.problems.push_back("a loadable segment (offset " + std::to_string(p.offset) + ", " + std::to_string(p.file_size) +
                                            " bytes) runs past the end of the file");
                    continue;
                }
                scan_embedded(*range, "segment@" + std::to_string(p.offset), p.offset, scan);
            }
        }
    } else if (elf->sections.empty() && !elf->segments.empty()) {
        scan.problems.emplace_back("no section headers: only a full scan (--full) searches the loadable segments");
    }
    return scan;
}

Expected<FileScan> scan_file(const host::Host& host, std::string_view path, ScanDepth depth) {
    auto file = host::MappedFile::open(host, path);
    if (!file) return Unexpected<Error>(file.error());
    auto scan = scan_elf_bytes(file->bytes(), depth, [&](std::uint64_t offset, std::uint64_t length, bool sequential) {
        file->will_need(offset, length, sequential);
    });
    if (!scan) return fail(scan.error().code, std::string(path) + ": " + scan.error().message);
    scan->path = std::string(path);
    return scan;
}

}  // namespace cudoctor::gpucode
