#include <fmt/format.h>

#include "report/report.hpp"
#include "report/summary.hpp"

namespace cudoctor::report {
namespace {

/// Table cells cannot hold '|' or newlines.
std::string cell(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += "<br>";
        else out += c;
    }
    return out.empty() ? "–" : out;
}

}  // namespace

void render_markdown(const snapshot::Snapshot& snap, std::ostream& out) {
    using detail::describe;
    out << "### cudoctor " << snap.tool_version << " report\n\n";
    out << "| layer | state |\n|---|---|\n";
    for (const auto& g : snap.gpus) out << "| GPU | " << cell(describe(g)) << " |\n";
    if (snap.gpus.empty()) out << "| GPU | no NVIDIA GPU on the PCI bus |\n";
    out << "| Driver | " << cell(detail::describe_kernel_module(snap.driver)) << " |\n";
    out << "| Driver | " << cell(detail::describe_user_space(snap.driver)) << " |\n";
    if (!snap.driver.max_cuda.empty()) out << "| Driver | " << cell(detail::describe_max_cuda(snap.driver)) << " |\n";
    for (const auto& tk : snap.toolkits) out << "| Toolkit | " << cell(describe(tk)) << " |\n";
    if (snap.toolkits.empty()) out << "| Toolkit | none installed |\n";
    for (const auto& c : snap.cudnn) out << "| cuDNN | " << cell(describe(c)) << " |\n";
    if (snap.cudnn.empty()) out << "| cuDNN | none found |\n";
    for (const auto& fw : snap.frameworks) out << "| Framework | " << cell(describe(fw)) << " |\n";
    const auto& env = snap.environment;
    if (!env.nvcc_on_path.empty()) out << "| Environment | nvcc on PATH: " << cell(detail::join(env.nvcc_on_path, ", ")) << " |\n";
    if (!env.cuda_symlink.empty())
        out << "| Environment | /usr/local/cuda → " << cell(env.cuda_symlink) << (env.cuda_symlink_dangling ? " (dangling)" : "") << " |\n";
    if (env.cuda_home) out << "| Environment | CUDA_HOME=" << cell(*env.cuda_home) << " |\n";
    out << "| Platform | " << cell(detail::describe_platform(snap.platform)) << " |\n";
    out << "| Platform | " << cell(detail::describe_platform_details(snap.platform)) << " |\n";
    if (!snap.notes.empty()) {
        out << "\n**Could not read**\n\n";
        for (const auto& n : snap.notes) out << "- " << detail::describe(n) << "\n";
    }
    out << "\n**Findings**\n\n";
    if (snap.findings.empty()) out << "No problems found.\n";
    for (const auto& f : snap.findings) {
        out << fmt::format("- **{}** `{}` {}{}\n", f.severity, f.id, f.title,
                           f.consequence_of.empty() ? "" : fmt::format(" (follows from `{}`)", f.consequence_of));
        if (!f.why.empty()) out << "  - why: " << f.why << "\n";
        if (!f.fix.empty()) {
            out << "  - fix:\n\n    ```sh\n";
            std::string_view rest = f.fix;
            while (!rest.empty()) {
                const auto nl = rest.find('\n');
                out << "    " << rest.substr(0, nl) << "\n";
                rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
            }
            out << "    ```\n";
        }
    }
}

}  // namespace cudoctor::report
