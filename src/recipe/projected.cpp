#include "recipe/projected.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace cudoctor::recipe {

namespace {

bool has_step(const Recipe& plan, std::string_view layer) {
    return std::any_of(plan.steps.begin(), plan.steps.end(), [&](const Step& s) { return s.layer == layer; });
}

void project_driver(snapshot::Snapshot& s, const Recipe& plan, const kb::Kb& kb) {
    if (!has_step(plan, "driver") || !plan.driver_after) return;
    const std::string v = plan.driver_after->str();
    auto& d = s.driver;
    d.kernel_module_version = v;
    d.user_space_versions = {v};
    d.libraries = {{"libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so." + v, v},
                   {"libnvidia-ml.so", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so." + v, v}};
    d.loaded_modules = {"nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm"};
    d.modules_known = true;
    d.package_events.clear();
    const auto max = kb.max_cuda_for(*plan.driver_after);
    d.max_cuda = max ? max->str() : "";
    d.max_cuda_source = "kb:cuda_driver.tsv";
    for (auto& g : s.gpus) g.bound_driver = "nvidia";
    for (auto& m : s.platform.dkms) m.version = v;
}

void project_toolkit(snapshot::Snapshot& s, const Recipe& plan, const kb::Kb& kb) {
    if (!has_step(plan, "toolkit") || !plan.toolkit_release) return;
    const std::string dir = plan.toolkit_path;
    for (auto& tk : s.toolkits) {
        tk.is_default = false;
        tk.first_on_path = false;
    }
    snapshot::Toolkit tk;
    tk.version = plan.toolkit_release->str();
    tk.version_source = "version.json";
    tk.path = dir;
    tk.install_method = snapshot::install_method_from(plan.toolkit_method).value_or(snapshot::InstallMethod::unknown);
    tk.has_nvcc = true;
    tk.nvcc_path = dir + "/bin/nvcc";
    tk.is_default = true;
    tk.first_on_path = true;
    tk.on_path = true;
    tk.max_gcc = kb.max_gcc_for(*plan.toolkit_release);
    tk.max_gcc_source = "kb:cuda_gcc.tsv";
    tk.found_by = {"/usr/local/cuda-*", "PATH"};
    tk.lib_dir = dir + "/targets/x86_64-linux/lib";
    tk.cudart_soname =
        fmt::format("libcudart.so.{}", plan.toolkit_release->major() >= 12 ? std::to_string(plan.toolkit_release->major())
                                                                           : std::to_string(plan.toolkit_release->major()) + ".0");
    tk.cudart_loader_visible = true;
    s.toolkits.push_back(tk);
    s.environment.cuda_symlink = dir;
    s.environment.cuda_symlink_dangling = false;
    s.environment.nvcc_on_path.insert(s.environment.nvcc_on_path.begin(), tk.nvcc_path);
    s.environment.nvcc_on_path_real.insert(s.environment.nvcc_on_path_real.begin(), tk.nvcc_path);
    s.environment.path.insert(s.environment.path.begin(), dir + "/bin");
}

void project_cudnn(snapshot::Snapshot& s, const Recipe& plan) {
    if (!has_step(plan, "cudnn") || !plan.cudnn) return;
    snapshot::Cudnn c;
    c.version = plan.cudnn->str();
    c.header_version = c.version;
    c.library_versions = {c.version};
    c.location = plan.cudnn_location;
    c.path = plan.cudnn_location == "system" ? "/usr/lib/x86_64-linux-gnu" : plan.toolkit_path + "/lib64";
    c.cuda_major = plan.cudnn_location == "system" ? std::to_string(plan.cuda->major()) : "";
    c.loader_visible = true;
    s.cudnn.push_back(c);
}

void project_framework(snapshot::Snapshot& s, const Recipe& plan) {
    if (!has_step(plan, "framework")) return;
    snapshot::Framework f;
    f.name = plan.framework;
    const std::string venv = "/home/user/venvs/" + plan.framework + "-" + plan.framework_variant;
    f.python = venv + "/lib/python3/site-packages";
    f.interpreter = venv + "/bin/python";
    f.cuda = plan.cuda->str();
    if (plan.framework_cudnn) f.cudnn = plan.framework_cudnn->str();
    if (plan.framework == "torch") {
        f.version = fmt::format("{}.0+{}", plan.framework_version, plan.framework_variant);
        if (plan.framework_cudnn) f.nvidia_wheels = {fmt::format("nvidia-cudnn-cu{}=={}", plan.cuda->major(), plan.framework_cudnn->str())};
    } else if (plan.framework == "tensorflow") {
        f.version = plan.framework_version + ".0";
        if (plan.framework_variant == "and-cuda")
            f.nvidia_wheels = {fmt::format("nvidia-cudnn-cu{}", plan.cuda->major()),
                               fmt::format("nvidia-cuda-runtime-cu{}", plan.cuda->major())};
    } else {
        f.version = plan.framework_version;
        f.nvidia_wheels = {fmt::format("nvidia-cudnn-cu{}", plan.cuda->major())};
    }
    s.frameworks.push_back(f);
}

}  // namespace

snapshot::Snapshot projected_snapshot(const snapshot::Snapshot& before, const Recipe& plan, const kb::Kb& kb) {
    snapshot::Snapshot s = before;
    s.findings.clear();
    if (plan.refused) return s;
    project_driver(s, plan, kb);
    if (plan.gcc) {
        s.platform.gcc_default = *plan.gcc;
        if (std::find(s.platform.gcc_installed.begin(), s.platform.gcc_installed.end(), *plan.gcc) == s.platform.gcc_installed.end())
            s.platform.gcc_installed.push_back(*plan.gcc);
    }
    project_toolkit(s, plan, kb);
    project_cudnn(s, plan);
    project_framework(s, plan);
    return s;
}

}  // namespace cudoctor::recipe
