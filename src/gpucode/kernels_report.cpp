// The `kernels` views: text (a list per file), a Markdown table per file, JSON.
#include <sstream>

#include <fmt/format.h>

#include "gpucode/kernels.hpp"
#include "report/style.hpp"

namespace cudoctor::gpucode {
namespace {

using cudoctor::report::join;

std::string targets_of(const Kernel& k) {
    std::vector<std::string> all = k.sass;
    all.insert(all.end(), k.ptx.begin(), k.ptx.end());
    all.insert(all.end(), k.lto.begin(), k.lto.end());
    return join(all, " ");
}

std::string totals_line(const FileKernels& f) {
    std::vector<std::string> images;
    if (f.sass_images) images.push_back(fmt::format("{} cubin{}", f.sass_images, f.sass_images == 1 ? "" : "s"));
    if (f.ptx_images) images.push_back(fmt::format("{} PTX", f.ptx_images));
    if (f.lto_images) images.push_back(fmt::format("{} LTO-IR", f.lto_images));
    if (f.other_images) images.push_back(fmt::format("{} other", f.other_images));
    std::string line = fmt::format("{} kernel{} ({} in all images) in {} module{}: {}", f.kernels.size(), f.kernels.size() == 1 ? "" : "s",
                                   f.kernel_images, f.modules, f.modules == 1 ? "" : "s", join(images, ", "));
    if (f.compressed)
        line += fmt::format("; {} decompressed ({})", f.compressed,
                            cudoctor::report::bytes_text(static_cast<double>(f.decompressed_bytes), cudoctor::report::ByteStyle::decimal));
    line += f.host_symbols ? fmt::format("; {} host launch stub{}", f.host_stubs, f.host_stubs == 1 ? "" : "s")
                           : std::string("; host symbols stripped");
    return line;
}

void write_text(const KernelsReport& report, bool totals_only, std::ostream& out) {
    for (const auto& f : report.files) {
        out << f.path << " (" << f.kind << ")\n  " << totals_line(f) << "\n";
        if (!totals_only)
            for (const auto& k : f.kernels) {
                out << "  " << k.demangled << "  [" << targets_of(k);
                if (k.lto.empty() && k.sass.empty() && k.ptx.empty()) out << "host stub only: no device code in this file";
                else if (!k.lto.empty()) out << ": named by its host stub";
                out << "]\n";
            }
        for (const auto& p : f.problems) out << "  problem: " << p << "\n";
    }
    if (report.without_gpu_code.size() <= 5) {
        for (const auto& p : report.without_gpu_code) out << p << ": no GPU code (no fatbin)\n";
    } else {
        out << report.without_gpu_code.size() << " ELF files: no GPU code (no fatbin)\n";
    }
    if (report.skipped_not_elf) out << report.skipped_not_elf << " files skipped: not ELF\n";
}

nlohmann::json file_json(const FileKernels& f) {
    using nlohmann::json;
    json kernels = json::array();
    for (const auto& k : f.kernels)
        kernels.push_back({{"name", k.name},
                           {"demangled", k.demangled},
                           {"sass", k.sass},
                           {"ptx", k.ptx},
                           {"lto_ir", k.lto},
                           {"images", k.images},
                           {"host_stub", k.host_stub}});
    return {{"path", f.path},
            {"size", f.size},
            {"kind", f.kind},
            {"kernels", kernels},
            {"totals",
             {{"kernels", f.kernels.size()},
              {"kernel_images", f.kernel_images},
              {"modules", f.modules},
              {"sass_images", f.sass_images},
              {"ptx_images", f.ptx_images},
              {"lto_ir_images", f.lto_images},
              {"other_images", f.other_images},
              {"decompressed_images", f.compressed},
              {"decompressed_bytes", f.decompressed_bytes},
              {"host_symbols", f.host_symbols},
              {"host_stubs", f.host_stubs}}},
            {"problems", f.problems}};
}

}  // namespace

void render_kernels_text(const KernelsReport& report, bool totals_only, std::ostream& out) {
    // Kernel names and paths come from outside; the view's own words hold no control byte.
    std::ostringstream text;
    write_text(report, totals_only, text);
    out << cudoctor::report::outside_lines(text.str());
}

void render_kernels_markdown(const KernelsReport& report, bool totals_only, std::ostream& out) {
    using cudoctor::report::markdown_cell;
    using cudoctor::report::markdown_code;
    bool first = true;
    for (const auto& f : report.files) {
        if (!first) out << "\n";
        first = false;
        out << "**" << markdown_code(f.path) << "** (" << markdown_cell(f.kind) << "): " << markdown_cell(totals_line(f)) << "\n";
        if (!totals_only && !f.kernels.empty()) {
            out << "\n| kernel | SASS | PTX | LTO-IR |\n|---|---|---|---|\n";
            for (const auto& k : f.kernels)
                out << "| " << markdown_code(k.demangled) << " | " << markdown_cell(join(k.sass, " ")) << " | "
                    << markdown_cell(join(k.ptx, " ")) << " | " << markdown_cell(join(k.lto, " ")) << " |\n";
        }
        for (const auto& p : f.problems) out << "\n- problem: " << markdown_cell(p);
        if (!f.problems.empty()) out << "\n";
    }
    for (const auto& p : report.without_gpu_code) out << "\n- " << markdown_code(p) << ": no GPU code";
    for (const auto& [path, e] : report.errors) out << "\n- " << markdown_code(path) << ": " << markdown_cell(e.message);
    if (!report.without_gpu_code.empty() || !report.errors.empty()) out << "\n";
}

std::string kernels_verdict_line(const KernelsReport& report) {
    const auto plural = [](std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); };
    if (report.files.empty())
        return report.without_gpu_code.empty() ? std::string() : "no GPU code in " + plural(report.without_gpu_code.size(), "ELF file");
    std::size_t kernels = 0, with_problems = 0;
    const FileKernels* first_problem = nullptr;
    for (const auto& f : report.files) {
        kernels += f.kernels.size();
        if (f.problems.empty()) continue;
        ++with_problems;
        if (!first_problem) first_problem = &f;
    }
    std::string line = plural(kernels, "kernel") + " in " + plural(report.files.size(), "file") + " with GPU code";
    if (!report.without_gpu_code.empty()) line += fmt::format(", {} without", report.without_gpu_code.size());
    if (first_problem) line += "; problems in " + plural(with_problems, "file") + ": " + first_problem->path;
    return cudoctor::report::outside_text(line, cudoctor::report::Medium::terminal);
}

nlohmann::json kernels_to_json(const KernelsReport& report) {
    using nlohmann::json;
    json files = json::array();
    for (const auto& f : report.files) files.push_back(file_json(f));
    json errors = json::array();
    for (const auto& [path, e] : report.errors) errors.push_back({{"path", path}, {"code", to_string(e.code)}, {"message", e.message}});
    return {{"depth", report.depth == ScanDepth::full ? "full" : "registered"},
            {"files", files},
            {"without_gpu_code", report.without_gpu_code},
            {"skipped_not_elf", report.skipped_not_elf},
            {"errors", errors}};
}

}  // namespace cudoctor::gpucode
