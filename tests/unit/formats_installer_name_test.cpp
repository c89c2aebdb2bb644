// read_installer_name: file names and makeself labels of NVIDIA's installers, and labels no
// installer should have (100 kB long: std::regex's recursive matcher overflowed the stack there,
// verify-installer died with SIGSEGV; RE2 runs in linear time).
#include <gtest/gtest.h>

#include <string>

#include "formats/installer_name.hpp"

using cudoctor::formats::official_url;
using cudoctor::formats::read_installer_name;

TEST(FormatsInstallerName, FileNamesOfEachKind) {
    const auto cuda = read_installer_name("/tmp/cuda_12.4.1_550.54.15_linux.run");
    EXPECT_EQ(cuda.product, "cuda");
    EXPECT_EQ(cuda.cuda, "12.4.1");
    EXPECT_EQ(cuda.driver, "550.54.15");
    EXPECT_EQ(cuda.arch, "x86_64");
    EXPECT_EQ(official_url("cuda_12.4.1_550.54.15_linux.run", cuda),
              "https://developer.download.nvidia.com/compute/cuda/12.4.1/local_installers/cuda_12.4.1_550.54.15_linux.run");
    EXPECT_EQ(read_installer_name("cuda_12.8.0_570.86.10_linux_sbsa.run").arch, "sbsa");
    const auto driver = read_installer_name("NVIDIA-Linux-x86_64-550.54.14.run");
    EXPECT_EQ(driver.product, "driver");
    EXPECT_EQ(driver.driver, "550.54.14");
    const auto cudnn = read_installer_name("cudnn-linux-x86_64-9.3.0.75_cuda12-archive.tar.xz");
    EXPECT_EQ(cudnn.product, "cudnn");
    EXPECT_EQ(cudnn.cudnn, "9.3.0.75");
    EXPECT_EQ(cudnn.cuda, "12");
    const auto repo = read_installer_name("cuda-repo-ubuntu2204-12-4-local_12.4.0-550.54.14-1_amd64.deb");
    EXPECT_EQ(repo.product, "cuda-repo");
    EXPECT_EQ(repo.cuda, "12.4.0");
    EXPECT_EQ(repo.arch, "amd64");
    EXPECT_EQ(read_installer_name("cudnn-local-repo-ubuntu2204-9.1.0_1.0-1_amd64.deb").cudnn, "9.1.0");
    EXPECT_EQ(read_installer_name("setup.run").product, "");
}

TEST(FormatsInstallerName, LabelsFillWhatTheNameLacks) {
    const auto n = read_installer_name("installer.run", "NVIDIA Accelerated Graphics Driver for Linux-x86_64 550.54.14", "");
    EXPECT_EQ(n.product, "driver");
    EXPECT_EQ(n.driver, "550.54.14");
    EXPECT_EQ(read_installer_name("installer.run", "CUDA Toolkit 12.4.1", "").cuda, "12.4.1");
    EXPECT_EQ(read_installer_name("installer.run", "", "535.104.05").driver, "535.104.05");
}

TEST(FormatsInstallerName, HundredKilobyteLabelsEndCalmly) {
    const std::string filler(100'000, 'x');
    EXPECT_EQ(read_installer_name("installer.run", "Driver " + filler + " 550.54.15", "").driver, "550.54.15");
    EXPECT_EQ(read_installer_name("installer.run", "CUDA" + std::string(100'000, ' ') + "12.4.1", "").cuda, "12.4.1");
    EXPECT_EQ(read_installer_name("installer.run", filler, "").product, "");
}
