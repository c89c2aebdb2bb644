// Host tests: `cudoctor check` on the machine the suite runs on, asserted against what this
// machine really holds (the CUDA 13.0 toolkit assembled from pip wheels, cuDNN 9 inside it,
// Debian's CPU-only python3-torch, no NVIDIA GPU). Each test skips where its artifact is absent.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/json_query.hpp"

extern char** environ;

namespace {

using cudoctor::test::find_by;

using nlohmann::json;
namespace fs = std::filesystem;

std::vector<std::string> process_environment() {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
    return env;
}

json check_here() {
    auto r = cudoctor::test::run_program(CUDOCTOR_BINARY, {"check", "--json"}, process_environment(), std::chrono::seconds(30));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.describe() << "\n" << r.err;
    return json::parse(r.out);
}

std::string define_value(const std::string& file, const std::string& name) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("#define " + name + " ", 0) == 0) return line.substr(name.size() + 9);
    }
    return {};
}

}  // namespace

TEST(RealMachine, ReportsTheCuda13ToolkitAssembledFromWheels) {
    const fs::path root = "/usr/local/cuda-13.0";
    if (!fs::exists(root / "bin/nvcc")) GTEST_SKIP() << "no CUDA 13.0 toolkit here";
    auto snap = check_here();
    const json* tk = find_by(snap["toolkits"], "path", root.string());
    ASSERT_NE(tk, nullptr) << snap["toolkits"].dump(2);
    // nvcc --version says "V13.0.88"; the files must say the same without running it.
    std::string nvcc_dist;
    for (const auto& e : fs::directory_iterator(root / "dist-info")) {
        auto n = e.path().filename().string();
        if (n.rfind("nvidia_cuda_nvcc-", 0) == 0) nvcc_dist = n.substr(17, n.size() - 17 - 10);
    }
    ASSERT_FALSE(nvcc_dist.empty());
    EXPECT_EQ((*tk)["version"], nvcc_dist);
    EXPECT_EQ((*tk)["version_source"], "dist-info");
    // Assembled from wheels but a system toolkit folder (nvcc, include, lib, outside site-packages):
    // nothing we know of owns it, and a pip install it is not.
    EXPECT_EQ((*tk)["install_method"], "unknown");
    EXPECT_EQ((*tk)["has_nvcc"], true);
    EXPECT_EQ((*tk)["is_default"], fs::canonical("/usr/local/cuda") == root);
    EXPECT_EQ((*tk)["max_gcc"], 15);  // include/crt/host_config.h: "#if __GNUC__ > 15"
    EXPECT_EQ((*tk)["max_gcc_source"], "include/crt/host_config.h");
    EXPECT_EQ((*tk)["first_on_path"], true);  // /usr/local/cuda/bin first, /usr/local/bin/nvcc wraps the same
}

TEST(RealMachine, ReportsCudnnInsideTheToolkit) {
    const std::string header = "/usr/local/cuda-13.0/include/cudnn_version.h";
    if (!fs::exists(header)) GTEST_SKIP() << "no cuDNN in the CUDA 13.0 toolkit here";
    const std::string expected =
        define_value(header, "CUDNN_MAJOR") + "." + define_value(header, "CUDNN_MINOR") + "." + define_value(header, "CUDNN_PATCHLEVEL");
    auto snap = check_here();
    const json* c = find_by(snap["cudnn"], "path", fs::canonical("/usr/local/cuda-13.0/lib64").string());
    ASSERT_NE(c, nullptr) << snap["cudnn"].dump(2);
    EXPECT_EQ((*c)["version"], expected);
    EXPECT_EQ((*c)["location"], "toolkit");
    EXPECT_EQ((*c)["cuda_major"], "13");
}

TEST(RealMachine, ReportsDebiansCpuOnlyTorchWithoutImportingIt) {
    const std::string version_py = "/usr/lib/python3/dist-packages/torch/version.py";
    if (!fs::exists(version_py)) GTEST_SKIP() << "Debian's python3-torch is not installed";
    auto snap = check_here();
    const json* torch = nullptr;
    for (const auto& fw : snap["frameworks"])
        if (fw["name"] == "torch" && fw["python"] == "/usr/lib/python3/dist-packages") torch = &fw;
    ASSERT_NE(torch, nullptr) << snap["frameworks"].dump(2);
    EXPECT_TRUE((*torch)["cuda"].is_null());  // `cuda = None`: a CPU build
    EXPECT_FALSE((*torch)["version"].get<std::string>().empty());
}

TEST(RealMachine, NoGpuNoDriverAndThePlatformIsRight) {
    if (fs::exists("/proc/driver/nvidia/version")) GTEST_SKIP() << "this machine has an NVIDIA driver";
    auto snap = check_here();
    EXPECT_TRUE(snap["gpus"].empty());
    EXPECT_EQ(snap["driver"]["kernel_module_version"], "");
    std::ifstream os("/etc/os-release");
    std::string line, id;
    while (std::getline(os, line))
        if (line.rfind("ID=", 0) == 0) id = line.substr(3);
    if (!id.empty() && id.front() == '"') id = id.substr(1, id.size() - 2);
    EXPECT_EQ(snap["platform"]["os_id"], id);
    EXPECT_FALSE(snap["platform"]["glibc"].get<std::string>().empty());
    EXPECT_EQ(snap["platform"]["wsl"], false);
}
