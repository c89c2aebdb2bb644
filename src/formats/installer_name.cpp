#include "formats/installer_name.hpp"

#include <algorithm>

#include <re2/re2.h>

namespace cudoctor::formats {
namespace {

std::string base_name(std::string_view path) {
    const auto slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

InstallerName read_installer_name(std::string_view path, std::string_view label, std::string_view version_string) {
    // RE2: linear time on any input (std::regex's recursive matcher overflowed the stack on a
    // 100 kB makeself label).
    const auto name = base_name(path);
    InstallerName n;
    static const RE2 cuda_run(R"(^cuda_(\d+\.\d+(?:\.\d+)?)_(\d+\.\d+(?:\.\d+)?)_linux(?:_(sbsa|ppc64le|aarch64))?\.run)");
    static const RE2 driver_run(R"(^NVIDIA-Linux-(x86_64|aarch64|ppc64le|armv7l-gnueabihf)-(\d+\.\d+(?:\.\d+)?)(?:-[a-z0-9]+)?\.run)");
    static const RE2 cudnn_tar(R"(^cudnn-linux-(x86_64|sbsa|aarch64|ppc64le)-(\d+\.\d+\.\d+(?:\.\d+)?)_cuda(\d+(?:\.\d+)?)-archive\.tar\.xz)");
    static const RE2 cuda_repo(R"(^cuda-repo-[a-z0-9]+-\d+-\d+-local_(\d+\.\d+\.\d+)-(\d+\.\d+(?:\.\d+)?)-\d+_([a-z0-9]+)\.deb)");
    static const RE2 cudnn_repo(R"(^cudnn-local-repo-[a-z0-9]+-(\d+\.\d+\.\d+(?:\.\d+)?)_[0-9.]+-\d+_([a-z0-9]+)\.deb)");
    std::string a, b, c;
    if (RE2::PartialMatch(name, cuda_run, &a, &b, &c)) {
        n = {"cuda", a, b, "", c.empty() ? "x86_64" : c};
    } else if (RE2::PartialMatch(name, driver_run, &a, &b)) {
        n = {"driver", "", b, "", a};
    } else if (RE2::PartialMatch(name, cudnn_tar, &a, &b, &c)) {
        n = {"cudnn", c, "", b, a};
    } else if (RE2::PartialMatch(name, cuda_repo, &a, &b, &c)) {
        n = {"cuda-repo", a, b, "", c};
    } else if (RE2::PartialMatch(name, cudnn_repo, &a, &b)) {
        n = {"cudnn-repo", "", "", a, b};
    }
    // The real label reads "NVIDIA Accelerated Graphics Driver for Linux-x86_64 550.54.14": the
    // version is the first NNN.NN[.NN] after "Driver" that no digit or dot runs into.
    static const RE2 driver_label(R"((?:Driver|driver).*?(?:[^0-9.])(\d{3}\.\d+(?:\.\d+)?))");
    static const RE2 cuda_label(R"(CUDA[^0-9]*(\d+\.\d+(?:\.\d+)?))");
    static const RE2 driver_version(R"(\d{3}\.\d+(?:\.\d+)?)");
    const re2::StringPiece lab(label.data(), label.size());
    if (n.driver.empty() && !version_string.empty() &&
        RE2::FullMatch(re2::StringPiece(version_string.data(), version_string.size()), driver_version))
        n.driver = std::string(version_string);
    if (n.driver.empty() && RE2::PartialMatch(lab, driver_label, &a)) n.driver = a;
    if (n.cuda.empty() && RE2::PartialMatch(lab, cuda_label, &a)) n.cuda = a;
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

}  // namespace cudoctor::formats
