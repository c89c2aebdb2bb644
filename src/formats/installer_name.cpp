#include "installer/installer_name.hpp"

#include <algorithm>
#include <regex>

namespace cudoctor::installer {
namespace {

std::string base_name(std::string_view path) {
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

InstallerName read_installer_name(std::string_view path, std::string_view label, std::string_view version_string) {
    const auto name = base_name(path);
    InstallerName n;
    std::smatch m;
    static const std::regex cuda_run(R"(^cuda_(\d+\.\d+(?:\.\d+)?)_(\d+\.\d+(?:\.\d+)?)_linux(?:_(sbsa|ppc64le|aarch64))?\.run)");
    static const std::regex driver_run(R"(^NVIDIA-Linux-(x86_64|aarch64|ppc64le|armv7l-gnueabihf)-(\d+\.\d+(?:\.\d+)?)(?:-[a-z0-9]+)?\.run)");
    static const std::regex cudnn_tar(
        R"(^cudnn-linux-(x86_64|sbsa|aarch64|ppc64le)-(\d+\.\d+\.\d+(?:\.\d+)?)_cuda(\d+(?:\.\d+)?)-archive\.tar\.xz)");
    static const std::regex cuda_repo(R"(^cuda-repo-[a-z0-9]+-\d+-\d+-local_(\d+\.\d+\.\d+)-(\d+\.\d+(?:\.\d+)?)-\d+_([a-z0-9]+)\.deb)");
    static const std::regex cudnn_repo(R"(^cudnn-local-repo-[a-z0-9]+-(\d+\.\d+\.\d+(?:\.\d+)?)_[0-9.]+-\d+_([a-z0-9]+)\.deb)");
    if (std::regex_search(name, m, cuda_run)) {
        n = {"cuda", m[1], m[2], "", m[3].matched ? std::string(m[3]) : "x86_64"};
    } else if (std::regex_search(name, m, driver_run)) {
        n = {"driver", "", m[2], "", m[1]};
    } else if (std::regex_search(name, m, cudnn_tar)) {
        n = {"cudnn", m[3], "", m[2], m[1]};
    } else if (std::regex_search(name, m, cuda_repo)) {
        n = {"cuda-repo", m[1], m[2], "", m[3]};
    } else if (std::regex_search(name, m, cudnn_repo)) {
        n = {"cudnn-repo", "", "", m[1], m[2]};
    }
    const std::string lab(label);
    static const std::regex driver_label(R"((?:Driver|driver)[^0-9]*?(\d{3}\.\d+(?:\.\d+)?))");
    static const std::regex cuda_label(R"(CUDA[^0-9]*(\d+\.\d+(?:\.\d+)?))");
    if (n.driver.empty() && !version_string.empty() && std::regex_match(std::string(version_string), std::regex(R"(\d{3}\.\d+(?:\.\d+)?)")))
        n.driver = std::string(version_string);
    if (n.driver.empty() && std::regex_search(lab, m, driver_label)) n.driver = m[1];
    if (n.cuda.empty() && std::regex_search(lab, m, cuda_label)) n.cuda = m[1];
    if (n.product.empty() && !n.driver.empty() && n.cuda.empty()) n.product = "driver";
    if (n.product.empty() && !n.cuda.empty()) n.product = "cuda";
    return n;
}

std::string official_url(std::string_view path, const InstallerName& name) {
    const auto file = base_name(path);
    if (name.product == "cuda" && file.starts_with("cuda_") && !name.cuda.empty()) {
        auto ver = name.cuda;
        if (std::count(ver.begin(), ver.end(), '.') == 1) ver += ".0";
        return "https://developer.download.nvidia.com/compute/cuda/" + ver + "/local_installers/" + file;
    }
    if (name.product == "driver" && file.starts_with("NVIDIA-Linux-"))
        return "https://download.nvidia.com/XFree86/Linux-" + name.arch + "/" + name.driver + "/" + file;
    if (name.product == "cudnn") return "https://developer.download.nvidia.com/compute/cudnn/redist/cudnn/linux-" + name.arch + "/" + file;
    return {};
}

}  // namespace cudoctor::installer
