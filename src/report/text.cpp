#include <fmt/format.h>

#include "report/report.hpp"
#include "report/style.hpp"
#include "report/summary.hpp"

namespace cudoctor::report {
namespace {

using detail::describe;

class Printer {
  public:
    Printer(std::ostream& out, const TextOptions& options) : m_out(out), m_options(options), m_painter(options.color) {}

    void section(std::string_view title) { m_out << "\n" << m_painter.paint(Ink::bold, title) << "\n"; }
    void ok(std::string_view line) { item(m_painter.paint(Ink::green, "✓"), line); }
    void warn(std::string_view line) { item(m_painter.paint(Ink::yellow, "!"), line); }
    void bad(std::string_view line) { item(m_painter.paint(Ink::red, "✗"), line); }
    void info(std::string_view line) { item(m_painter.paint(Ink::dim, "·"), line); }
    void evidence(const std::vector<snapshot::Evidence>& ev) {
        if (!m_options.verbose) return;
        for (const auto& e : ev)
            m_out << "      " << m_painter.paint(Ink::dim, safe("from " + e.source + (e.detail.empty() ? "" : ": " + e.detail))) << "\n";
    }
    void sub(std::string_view line) { m_out << "      " << safe(line) << "\n"; }

  private:
    // Every line carries names and paths read from the machine (a file name may hold ESC): our
    // own words have no control characters, so the whole line goes through the one escape.
    static std::string safe(std::string_view line) { return outside_text(line, Medium::terminal); }
    void item(const std::string& mark, std::string_view line) { m_out << "  " << mark << " " << safe(line) << "\n"; }
    std::ostream& m_out;
    const TextOptions& m_options;
    Painter m_painter;
};

void render_findings(const snapshot::Snapshot& snap, Printer& p) {
    p.section("Findings");
    const std::string cannot = cannot_run_verdict(snap);
    if (!cannot.empty()) p.bad(cannot);
    if (snap.findings.empty()) {
        if (cannot.empty()) p.ok("no problems found");
        return;
    }
    for (const auto& f : snap.findings) {
        const std::string line =
            fmt::format("[{}] {}{}", f.id, f.title, f.consequence_of.empty() ? "" : " (follows from " + f.consequence_of + ")");
        if (f.severity == snapshot::Severity::error) p.bad(line);
        else if (f.severity == snapshot::Severity::warning) p.warn(line);
        else p.info(line);
        if (!f.why.empty()) p.sub("why: " + f.why);
        if (!f.fix.empty()) {
            p.sub("fix:");
            std::string_view rest = f.fix;
            while (!rest.empty()) {
                auto nl = rest.find('\n');
                p.sub("  " + std::string(rest.substr(0, nl)));
                rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
            }
        }
        p.evidence(f.evidence);
    }
}

}  // namespace

void render_text(const snapshot::Snapshot& snap, const TextOptions& options, std::ostream& out) {
    Printer p(out, options);
    out << "cudoctor " << snap.tool_version << " — CUDA stack of "
        << outside_text(machine_heading(snap, options.snapshot_file), Medium::terminal) << "\n";
    for (const auto& o : snap.overrides) out << "  override active: " << outside_text(o, Medium::terminal) << "\n";

    p.section("GPU");
    if (snap.gpus.empty()) p.info(detail::describe_no_gpu(snap));
    for (const auto& g : snap.gpus) {
        (g.bound_driver == "nvidia" ? p.ok(describe(g)) : p.warn(describe(g)));
        p.evidence(g.evidence);
    }

    const auto& d = snap.driver;
    p.section("Driver");
    if (!d.kernel_module_version.empty()) p.ok(detail::describe_kernel_module(d));
    else if (snap.gpus.empty()) p.info(detail::describe_kernel_module(d));
    else p.bad(detail::describe_kernel_module(d));
    if (!d.windows_version.empty()) p.ok(detail::describe_windows_driver(d));
    if (d.libraries.empty()) p.info(detail::describe_user_space(d));
    else if (!d.kernel_module_version.empty() && !d.user_space_versions.empty() &&
             (d.user_space_versions.size() > 1 || d.user_space_versions.front() != d.kernel_module_version))
        p.bad(detail::describe_user_space(d) + " — differs from the kernel module");
    else p.ok(detail::describe_user_space(d));
    if (!d.max_cuda.empty()) p.info(detail::describe_max_cuda(d));
    p.evidence(d.evidence);

    p.section("CUDA Toolkit");
    if (snap.toolkits.empty()) p.info("no CUDA toolkit installed");
    for (const auto& tk : snap.toolkits) {
        p.ok(describe(tk));
        p.evidence(tk.evidence);
    }

    p.section("cuDNN");
    if (snap.cudnn.empty()) p.info("no cuDNN found");
    for (const auto& c : snap.cudnn) {
        p.ok(describe(c));
        p.evidence(c.evidence);
    }

    p.section("Frameworks");
    if (snap.frameworks.empty()) p.info("no PyTorch, TensorFlow, JAX, CuPy, ONNX Runtime or Triton found");
    for (const auto& fw : snap.frameworks) {
        p.ok(describe(fw));
        if (!fw.nvidia_wheels.empty() && options.verbose) p.sub("wheels: " + join(fw.nvidia_wheels, ", ", true));
        p.evidence(fw.evidence);
    }

    const auto& env = snap.environment;
    p.section("Environment");
    if (env.nvcc_on_path.empty()) p.info("no nvcc on PATH");
    for (std::size_t i = 0; i < env.nvcc_on_path.size(); ++i)
        p.info(fmt::format("nvcc on PATH: {}{}", env.nvcc_on_path[i], i == 0 ? " (wins)" : " (shadowed)"));
    if (!env.cuda_symlink.empty())
        (env.cuda_symlink_dangling ? p.bad("/usr/local/cuda → " + env.cuda_symlink + " (dangling: the target does not exist)")
                                   : p.info("/usr/local/cuda → " + env.cuda_symlink));
    for (const auto& [name, value] : {std::pair{"CUDA_HOME", env.cuda_home}, std::pair{"CUDA_PATH", env.cuda_path},
                                      std::pair{"CUDA_VISIBLE_DEVICES", env.cuda_visible_devices}}) {
        if (value) p.info(fmt::format("{}={}", name, *value));
    }
    for (const auto& e : env.ld_library_path) {
        if (e.empty) p.warn("LD_LIBRARY_PATH has an empty entry (it means the current directory)");
        else if (!e.exists) p.warn("LD_LIBRARY_PATH: " + e.path + " does not exist");
        else
            p.info("LD_LIBRARY_PATH: " + e.path +
                   (e.cuda_libraries.empty() ? "" : " (" + std::to_string(e.cuda_libraries.size()) + " CUDA libraries)"));
    }
    if (!env.loader_cache_format.empty())
        p.info(fmt::format("loader cache: {} CUDA libraries ({} format)", env.loader_cache.size(), env.loader_cache_format));
    for (const auto& c : env.conda_envs) p.info("conda env: " + c + (env.active_conda_env == c ? " (active)" : ""));
    if (env.virtual_env) p.info("virtual env: " + *env.virtual_env);
    p.evidence(env.evidence);

    p.section("Platform");
    p.info(detail::describe_platform(snap.platform));
    p.info(detail::describe_platform_details(snap.platform));
    for (const auto& m : snap.platform.dkms)
        p.info(fmt::format("DKMS {} {}: {}", m.module, m.version,
                           m.kernel.empty() ? "not built" : "built for " + m.kernel + (m.built_for_running_kernel ? " (running)" : "")));
    p.evidence(snap.platform.evidence);

    if (!snap.notes.empty()) {
        p.section("Could not read");
        for (const auto& n : snap.notes) p.warn(detail::describe(n));
    }
    render_findings(snap, p);
}

}  // namespace cudoctor::report
