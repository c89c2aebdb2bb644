#include <fmt/format.h>

#include "report/report.hpp"
#include "report/style.hpp"
#include "report/summary.hpp"

namespace cudoctor::report {
void render_markdown(const snapshot::Snapshot& snap, std::ostream& out, const std::optional<std::string>& snapshot_file) {
    using detail::describe;
    out << "### cudoctor " << snap.tool_version << " report";
    if (snapshot_file) out << " on " << markdown_cell(machine_heading(snap, snapshot_file), "–");
    out << "\n\n";
    out << "| layer | state |\n|---|---|\n";
    for (const auto& g : snap.gpus) out << "| GPU | " << markdown_cell(describe(g), "–") << " |\n";
    if (snap.gpus.empty()) out << "| GPU | " << markdown_cell(detail::describe_no_gpu(snap), "–") << " |\n";
    out << "| Driver | " << markdown_cell(detail::describe_kernel_module(snap.driver), "–") << " |\n";
    if (!snap.driver.windows_version.empty())
        out << "| Driver | " << markdown_cell(detail::describe_windows_driver(snap.driver), "–") << " |\n";
    out << "| Driver | " << markdown_cell(detail::describe_user_space(snap.driver), "–") << " |\n";
    if (!snap.driver.max_cuda.empty()) out << "| Driver | " << markdown_cell(detail::describe_max_cuda(snap.driver), "–") << " |\n";
    for (const auto& tk : snap.toolkits) out << "| Toolkit | " << markdown_cell(describe(tk), "–") << " |\n";
    if (snap.toolkits.empty()) out << "| Toolkit | none installed |\n";
    for (const auto& c : snap.cudnn) out << "| cuDNN | " << markdown_cell(describe(c), "–") << " |\n";
    if (snap.cudnn.empty()) out << "| cuDNN | none found |\n";
    for (const auto& fw : snap.frameworks) out << "| Framework | " << markdown_cell(describe(fw), "–") << " |\n";
    const auto& env = snap.environment;
    if (!env.nvcc_on_path.empty())
        out << "| Environment | nvcc on PATH: " << markdown_cell(join(env.nvcc_on_path, ", ", true), "–") << " |\n";
    if (!env.cuda_symlink.empty())
        out << "| Environment | /usr/local/cuda → " << markdown_cell(env.cuda_symlink, "–")
            << (env.cuda_symlink_dangling ? " (dangling)" : "") << " |\n";
    if (env.cuda_home) out << "| Environment | CUDA_HOME=" << markdown_cell(*env.cuda_home, "–") << " |\n";
    out << "| Platform | " << markdown_cell(detail::describe_platform(snap.platform), "–") << " |\n";
    out << "| Platform | " << markdown_cell(detail::describe_platform_details(snap.platform), "–") << " |\n";
    if (!snap.notes.empty()) {
        out << "\n**Could not read**\n\n";
        for (const auto& n : snap.notes) out << "- " << markdown_cell(detail::describe(n)) << "\n";
    }
    out << "\n**Findings**\n\n";
    const std::string cannot = cannot_run_verdict(snap);
    if (!cannot.empty()) out << "**" << markdown_cell(cannot) << "**\n\n";
    if (snap.findings.empty() && cannot.empty()) out << "No problems found.\n";
    for (const auto& f : snap.findings) {
        // A snapshot read from a file may hold any id, title or fix: each through the escape.
        out << fmt::format("- **{}** {} {}{}\n", snapshot::to_string(f.severity), markdown_code(f.id), markdown_cell(f.title),
                           f.consequence_of.empty() ? "" : fmt::format(" (follows from {})", markdown_code(f.consequence_of)));
        if (!f.why.empty()) out << "  - why: " << markdown_cell(f.why) << "\n";
        if (!f.fix.empty()) out << "  - fix:\n\n" << markdown_block(f.fix, "sh", "    ");
    }
}

}  // namespace cudoctor::report
