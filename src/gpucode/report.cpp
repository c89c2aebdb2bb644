#include "gpucode/report.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "formats/elf.hpp"
#include "gpucode/inputs.hpp"
#include "report/style.hpp"

namespace cudoctor::gpucode {
namespace {

const char* kind_id(formats::FatbinKind k) {
    switch (k) {
        case formats::FatbinKind::sass: return "sass";
        case formats::FatbinKind::ptx: return "ptx";
        case formats::FatbinKind::lto_ir: return "lto-ir";
        case formats::FatbinKind::other: return "other";
    }
    return "other";
}

/// "sm_75 sm_86" for one kind of target; PTX with its ISA: "compute_90 (ISA 9.0)".
std::string list_of(const std::vector<TargetSummary>& targets, formats::FatbinKind kind, bool with_isa) {
    std::string out;
    for (const auto& t : targets) {
        if (t.target.kind != kind) continue;
        if (!out.empty()) out += ' ';
        out += t.name;
        if (with_isa && !t.ptx_isa.empty()) out += " (ISA " + t.ptx_isa + ")";
    }
    return out;
}

std::string compression_line(const std::vector<TargetSummary>& targets) {
    std::uint64_t images = 0, compressed = 0;
    std::string kinds;
    for (const auto& t : targets) {
        images += t.images;
        compressed += t.compressed;
        for (const auto& k : {std::string("zstd"), std::string("LZ4")})
            if (t.compression.find(k) != std::string::npos && kinds.find(k) == std::string::npos) kinds += (kinds.empty() ? "" : "+") + k;
    }
    if (compressed == 0) return fmt::format("{} images, none compressed", images);
    if (compressed == images) return fmt::format("{} images, all compressed ({})", images, kinds);
    return fmt::format("{} images, {} compressed ({})", images, compressed, kinds);
}

std::string verdict_text(const Verdict& v) {
    if (v.partial && v.best_covered)
        return fmt::format(
            "partial: only {} of {} modules have code for it ({}), against {} for compute capability {} — most of its kernels "
            "will not load on this GPU (\"no kernel image is available\"); the rule: fewer than 1 in {} of the modules the "
            "best-covered GPU can use",
            v.modules_usable, v.modules_total, v.via, v.best_covered_modules, v.best_covered->str(), kPartialShare);
    std::string s = to_string(v.mode);
    if (v.mode == RunMode::cannot_run) return s + ": no SASS for it and no PTX it can JIT (\"no kernel image is available\")";
    s += " — " + v.via;
    if (v.mode == RunMode::ptx_jit) {
        s += " (slower first start";
        if (v.ptx_needs_cuda) s += "; needs a driver for CUDA " + v.ptx_needs_cuda->str() + " or newer";
        if (v.driver_too_old && *v.driver_too_old) s += ": THIS DRIVER IS TOO OLD";
        s += ")";
    }
    if (v.modules_total > 1 && v.modules_usable < v.modules_total)
        s += fmt::format("; {} of {} modules have code for it", v.modules_usable, v.modules_total);
    return s;
}

/// "GeForce RTX 4090 (8.9)", or just "compute capability 8.9" when no name is known.
std::string gpu_label(const TargetGpu& g) { return g.name.starts_with("compute capability") ? g.name : g.name + " (" + g.cc.str() + ")"; }

bool fails(const Verdict& v) { return v.mode == RunMode::cannot_run || v.partial || (v.driver_too_old && *v.driver_too_old); }

/// The JSON and Markdown word for a verdict: the run mode's id, or "partial".
const char* verdict_id(const Verdict& v) { return v.partial ? "partial" : to_id(v.mode); }

}  // namespace

bool ArchReport::any_cannot_run() const {
    for (const auto& f : files)
        for (const auto& v : f.verdicts)
            if (f.scan.has_gpu_code() && fails(v)) return true;
    return false;
}

bool ArchReport::any_problem() const {
    if (any_cannot_run()) return true;
    if (gpus.empty()) return false;
    for (const auto& p : packages)
        if (p.without_cuda()) return true;
    return false;
}

void judge_packages(const host::Host& host, const Expansion& expansion, ArchReport& report) {
    std::set<std::string> with_code, without_code;
    for (const auto& f : report.files)
        if (f.scan.has_gpu_code()) with_code.insert(f.scan.path);
    without_code.insert(report.without_gpu_code.begin(), report.without_gpu_code.end());
    for (const auto& in : expansion.packages) {
        PackageResult p{in.name, in.site, 0, 0, package_build_evidence(host, in.site, in.name)};
        for (std::size_t i = in.first_file; i < in.end_file && i < expansion.files.size(); ++i) {
            const auto& path = expansion.files[i].path;
            if (with_code.count(path)) {
                ++p.elf_files;
                ++p.with_gpu_code;
            } else if (without_code.count(path)) {
                ++p.elf_files;
            }
        }
        report.packages.push_back(std::move(p));
    }
}

void scan_into(const host::Host& host, const std::vector<Candidate>& files, ArchReport& report) {
    for (const auto& c : files) {
        if (!c.named) {
            // A walk meets scripts and data files: look at the magic before mapping anything.
            auto head = host.read_head(c.path, 4);
            if (!head || !formats::is_elf(*head)) {
                ++report.skipped_not_elf;
                continue;
            }
        }
        auto scan = scan_file(host, c.path, report.depth);
        // "No GPU code" is a claim only a search of the whole file makes: a file with no registered
        // fatbin may still embed some in a data section (--fast forbids the search).
        if (scan && !scan->has_gpu_code() && scan->problems.empty() && scan->depth == ScanDepth::registered && !report.fast)
            scan = scan_file(host, c.path, ScanDepth::full);
        if (!scan) {
            report.errors.emplace_back(c.path, scan.error());
            continue;
        }
        if (!scan->has_gpu_code() && scan->problems.empty()) {
            report.without_gpu_code.push_back(c.path);
            continue;
        }
        FileResult result;
        result.targets = summarize(*scan);
        const auto modules = scan->module_images();
        for (const auto& gpu : report.gpus) result.verdicts.push_back(verdict_for(modules, gpu.cc, report.driver_max_cuda));
        result.scan = std::move(*scan);
        report.files.push_back(std::move(result));
    }
}

std::string verdict_line(const ArchReport& report) {
    using cudoctor::report::Medium;
    using cudoctor::report::outside_text;
    std::size_t with_code = 0;
    std::vector<std::string> failing;
    for (const auto& f : report.files) {
        if (!f.scan.has_gpu_code()) continue;
        ++with_code;
        if (std::any_of(f.verdicts.begin(), f.verdicts.end(), fails)) failing.push_back(outside_text(f.scan.path, Medium::terminal));
    }
    if (!report.gpus.empty())
        for (const auto& p : report.packages)
            if (p.without_cuda()) failing.push_back(outside_text(p.name, Medium::terminal) + " (built without CUDA)");
    const auto count = [](std::size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
    const std::size_t without = report.without_gpu_code.size();
    if (with_code == 0 && failing.empty()) {
        if (without)
            return "no GPU code in " + count(without, "ELF file", "ELF files") + (report.fast ? " (--fast: registered fatbins only)" : "");
        if (report.skipped_not_elf) return "no ELF file: " + count(report.skipped_not_elf, "file", "files") + " skipped, not ELF";
        return "";  // nothing was read: the errors say why
    }
    std::string s = count(with_code, "file", "files") + " with GPU code";
    if (without) s += ", " + std::to_string(without) + " without";
    if (report.gpus.empty()) return s + "; no GPU known for a verdict (give --gpu)";
    std::vector<std::string> gpus;
    for (const auto& g : report.gpus) gpus.push_back(gpu_label(g));
    const std::string on = cudoctor::report::join(gpus, ", ");
    if (failing.empty()) return "✓ " + s + ": all run on " + on;
    return "✗ " + s + ": " + std::to_string(failing.size()) + " not runnable (in full) on " + on + ": " + failing.front() +
           (failing.size() > 1 ? ", …" : "");
}

namespace {

void write_text(const ArchReport& report, std::ostream& out) {
    for (const auto& f : report.files) {
        const auto& s = f.scan;
        out << cudoctor::report::outside_text(s.path, cudoctor::report::Medium::terminal) << "  (" << s.kind << ", "
            << cudoctor::report::bytes_text(static_cast<double>(s.size), cudoctor::report::ByteStyle::decimal) << ", " << s.modules.size()
            << " GPU modules)\n";
        if (auto sass = list_of(f.targets, formats::FatbinKind::sass, false); !sass.empty()) out << "  SASS    " << sass << "\n";
        if (auto ptx = list_of(f.targets, formats::FatbinKind::ptx, true); !ptx.empty()) out << "  PTX     " << ptx << "\n";
        if (auto lto = list_of(f.targets, formats::FatbinKind::lto_ir, false); !lto.empty()) out << "  LTO-IR  " << lto << "\n";
        if (auto other = list_of(f.targets, formats::FatbinKind::other, false); !other.empty()) out << "  other   " << other << "\n";
        if (!f.targets.empty()) out << "  images  " << compression_line(f.targets) << "\n";
        for (const auto& sec : s.sections) {
            if (!sec.embedded) continue;
            out << fmt::format("  embedded in {}: {} modules, {} images (loaded through the module API)\n", sec.name, sec.modules,
                               sec.images);
        }
        for (const auto& p : s.problems) out << "  problem: " << p << "\n";
        for (std::size_t i = 0; i < report.gpus.size() && i < f.verdicts.size() && s.has_gpu_code(); ++i)
            out << "  " << gpu_label(report.gpus[i]) << ": " << verdict_text(f.verdicts[i]) << "\n";
        out << "\n";
    }
    if (!report.without_gpu_code.empty()) {
        // Only --fast leaves a file without a registered fatbin unsearched (scan_into).
        const char* none = report.fast ? "no fatbin registered at load (--fast: data sections not searched)" : "no GPU code (no fatbin)";
        if (report.without_gpu_code.size() <= 5) {
            for (const auto& p : report.without_gpu_code)
                out << cudoctor::report::outside_text(p, cudoctor::report::Medium::terminal) << ": " << none << "\n";
        } else {
            out << report.without_gpu_code.size() << " ELF files: " << none << "\n";
        }
    }
    for (const auto& p : report.packages) {
        if (p.with_gpu_code > 0) continue;  // its files' verdicts above say it all
        out << p.name << "  (Python package in " << cudoctor::report::outside_text(p.site, cudoctor::report::Medium::terminal) << ": "
            << p.elf_files << " ELF files, none with GPU code)\n";
        if (p.build)
            out << "  " << (p.build->with_cuda ? "built with CUDA: " : "built without CUDA: ")
                << cudoctor::report::outside_text(p.build->text, cudoctor::report::Medium::terminal) << "\n";
        if (!p.without_cuda()) {
            out << "  no verdict: a package may load GPU code from other packages or compile it at run time\n\n";
            continue;
        }
        if (report.gpus.empty()) out << "  it can use no NVIDIA GPU\n";
        for (const auto& g : report.gpus) out << "  " << gpu_label(g) << ": cannot use this GPU (no CUDA code, and no way to load any)\n";
        out << "\n";
    }
    if (report.skipped_not_elf) out << report.skipped_not_elf << " files skipped: not ELF\n";
    // The notes speak of the lists above and of the verdicts a GPU would give: none without them.
    if (report.files.empty() && report.packages.empty()) return;
    // A file with no registered fatbin was searched whole (scan_into): its list is complete.
    const bool registered_lists = std::any_of(report.files.begin(), report.files.end(), [](const FileResult& f) {
        return f.scan.depth == ScanDepth::registered && f.scan.has_gpu_code();
    });
    if (registered_lists && report.fast)
        out << "(--fast: only the fatbins registered at load were read; those embedded in data sections were not searched, so the "
               "lists above may be incomplete)\n";
    else if (registered_lists)
        // Not "because every GPU runs them": `opencv` reads the registered ones only, by design.
        out << "(only the fatbins registered at load were read; those embedded in data sections (where cuFFT keeps most of its "
               "kernels) were not searched, so the lists above may be incomplete: `cudoctor arch --full` searches them too)\n";
    if (!report.note.empty()) out << report.note << "\n";
}

}  // namespace

void render_text(const ArchReport& report, std::ostream& out) {
    // Paths, package names, ELF section names, build evidence and GPU names come from outside,
    // and the view's own words hold no control byte: the finished view goes through the one
    // escape, line by line.
    std::ostringstream text;
    write_text(report, text);
    out << cudoctor::report::outside_lines(text.str());
}

void render_markdown(const ArchReport& report, std::ostream& out) {
    using cudoctor::report::markdown_cell;
    using cudoctor::report::markdown_code;
    out << "| file | SASS | PTX | compressed |";
    for (const auto& g : report.gpus) out << " " << markdown_cell(gpu_label(g)) << " |";
    out << "\n|---|---|---|---|";
    for (std::size_t i = 0; i < report.gpus.size(); ++i) out << "---|";
    out << "\n";
    for (const auto& f : report.files) {
        std::uint64_t images = 0, compressed = 0;
        for (const auto& t : f.targets) {
            images += t.images;
            compressed += t.compressed;
        }
        out << "| " << markdown_code(f.scan.path) << " | " << markdown_cell(list_of(f.targets, formats::FatbinKind::sass, false)) << " | "
            << markdown_cell(list_of(f.targets, formats::FatbinKind::ptx, true)) << " | " << compressed << "/" << images << " |";
        for (const auto& v : f.verdicts) {
            out << " " << (v.mode == RunMode::cannot_run ? "**cannot run**" : v.partial ? "**partial**" : to_id(v.mode));
            if (!v.via.empty()) out << " (" << markdown_cell(v.via) << ")";
            if (v.partial) out << " " << v.modules_usable << "/" << v.modules_total << " modules";
            out << " |";
        }
        out << "\n";
    }
    for (const auto& p : report.packages) {
        if (!p.without_cuda()) continue;
        out << "| " << markdown_code(p.name) << " (Python package, built without CUDA) | | | |";
        for (std::size_t i = 0; i < report.gpus.size(); ++i) out << " **cannot use** |";
        out << "\n";
    }
    for (const auto& [path, e] : report.errors) out << "\n- " << markdown_code(path) << ": " << markdown_cell(e.message);
    if (!report.errors.empty()) out << "\n";
    // As in the text view: the note speaks of the lists above, so none without them.
    if (!report.note.empty() && !(report.files.empty() && report.packages.empty())) out << "\n" << markdown_cell(report.note) << "\n";
}

nlohmann::json to_json(const ArchReport& report) {
    using nlohmann::json;
    json gpus = json::array();
    for (const auto& g : report.gpus) gpus.push_back({{"name", g.name}, {"compute_capability", g.cc.str()}, {"source", g.source}});
    json files = json::array();
    for (const auto& f : report.files) {
        json targets = json::array();
        for (const auto& t : f.targets) {
            targets.push_back({{"target", t.name},
                               {"kind", kind_id(t.target.kind)},
                               {"arch", t.target.arch},
                               {"variant", t.target.variant ? std::string(1, t.target.variant) : std::string()},
                               {"images", t.images},
                               {"compressed", t.compressed},
                               {"compression", t.compression},
                               {"ptx_isa", t.ptx_isa.empty() ? json(nullptr) : json(t.ptx_isa)},
                               {"registered", t.registered},
                               {"embedded", t.embedded}});
        }
        json sections = json::array();
        for (const auto& s : f.scan.sections)
            sections.push_back({{"name", s.name}, {"embedded", s.embedded}, {"modules", s.modules}, {"images", s.images}, {"error", s.error}});
        json verdicts = json::array();
        for (std::size_t i = 0; i < f.verdicts.size() && i < report.gpus.size(); ++i) {
            const auto& v = f.verdicts[i];
            verdicts.push_back({{"gpu", report.gpus[i].name},
                                {"compute_capability", report.gpus[i].cc.str()},
                                {"verdict", verdict_id(v)},
                                {"run_mode", to_id(v.mode)},
                                {"via", v.via},
                                {"modules_usable", v.modules_usable},
                                {"modules_total", v.modules_total},
                                {"partial", v.partial},
                                {"best_covered", v.best_covered ? json(v.best_covered->str()) : json(nullptr)},
                                {"best_covered_modules", v.best_covered_modules},
                                {"ptx_needs_cuda", v.ptx_needs_cuda ? json(v.ptx_needs_cuda->str()) : json(nullptr)},
                                {"driver_too_old", v.driver_too_old ? json(*v.driver_too_old) : json(nullptr)}});
        }
        files.push_back({{"path", f.scan.path},
                         {"size", f.scan.size},
                         {"kind", f.scan.kind},
                         {"modules", f.scan.modules.size()},
                         {"targets", targets},
                         {"sections", sections},
                         {"problems", f.scan.problems},
                         {"verdicts", verdicts}});
    }
    json packages = json::array();
    for (const auto& p : report.packages) {
        json verdicts = json::array();
        if (p.without_cuda())
            for (const auto& g : report.gpus)
                verdicts.push_back({{"gpu", g.name}, {"compute_capability", g.cc.str()}, {"verdict", "cannot-use"}});
        packages.push_back({{"name", p.name},
                            {"site", p.site},
                            {"elf_files", p.elf_files},
                            {"with_gpu_code", p.with_gpu_code},
                            {"built_with_cuda", p.build ? json(p.build->with_cuda) : json(nullptr)},
                            {"build_evidence", p.build ? json(p.build->text) : json(nullptr)},
                            {"verdicts", verdicts}});
    }
    json errors = json::array();
    for (const auto& [path, e] : report.errors) errors.push_back({{"path", path}, {"code", to_string(e.code)}, {"message", e.message}});
    return {{"gpus", gpus},
            {"driver_max_cuda", report.driver_max_cuda ? json(report.driver_max_cuda->str()) : json(nullptr)},
            {"depth", report.depth == ScanDepth::full ? "full" : "registered"},
            {"fast", report.fast},
            {"packages", packages},
            {"files", files},
            {"without_gpu_code", report.without_gpu_code},
            {"skipped_not_elf", report.skipped_not_elf},
            {"errors", errors},
            {"note", report.note}};
}

}  // namespace cudoctor::gpucode
