#include <gtest/gtest.h>

#include "kb/kb.hpp"

using cudoctor::Version;
using cudoctor::kb::Kb;

namespace {

Version v(const char* text) { return *Version::parse(text); }
std::string str(const std::optional<Version>& version) { return version ? version->str() : "none"; }
const Kb& builtin_kb() { return Kb::builtin(); }

}  // namespace

// --- GPUs -------------------------------------------------------------------------------------

TEST(KbGpu, ByPciId) {
    const auto rtx4090 = builtin_kb().gpu_by_pci_id(0x10de, 0x2684);
    ASSERT_TRUE(rtx4090);
    EXPECT_EQ(rtx4090->name, "GeForce RTX 4090");
    EXPECT_EQ(rtx4090->architecture, "Ada Lovelace");
    EXPECT_EQ(rtx4090->chip, "AD102");
    EXPECT_EQ(rtx4090->compute_capability, "8.9");

    const auto gtx1060 = builtin_kb().gpu_by_pci_id(0x10de, 0x1c03);  // the GP106 one of two chips
    ASSERT_TRUE(gtx1060);
    EXPECT_EQ(gtx1060->chip, "GP106");
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x1b83)->chip, "GP104");

    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x2330)->name, "NVIDIA H100");
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x2330)->compute_capability, "9.0");
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x2b85)->compute_capability, "12.0");  // RTX 5090
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x2b00)->compute_capability, "11.0");  // Jetson Thor
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x2920)->compute_capability, "10.0");  // B100, filled in
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x1df6)->name, "Tesla V100S");
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x1db4)->name, "Tesla V100");
}

TEST(KbGpu, SharedPciIdNamesBothProducts) {
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x1e30)->name, "Quadro RTX 6000 / Quadro RTX 8000");
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x1e36)->name, "Quadro RTX 6000");
    EXPECT_EQ(builtin_kb().gpu_by_pci_id(0x10de, 0x25b6)->name, "NVIDIA A2 / NVIDIA A16");
}

TEST(KbGpu, UnknownPciIds) {
    EXPECT_FALSE(builtin_kb().gpu_by_pci_id(0x10de, 0x0001));
    EXPECT_FALSE(builtin_kb().gpu_by_pci_id(0x1002, 0x2684));  // right device, wrong vendor
}

TEST(KbGpu, FromPciIdsName) {
    const auto ada = builtin_kb().gpu_from_pci_ids_name("AD106 [GeForce RTX 4060 Ti]");
    ASSERT_TRUE(ada);
    EXPECT_EQ(ada->chip, "AD106");
    EXPECT_EQ(ada->name, "GeForce RTX 4060 Ti");
    EXPECT_EQ(ada->architecture, "Ada Lovelace");
    EXPECT_EQ(ada->compute_capability, "8.9");

    const auto hopper = builtin_kb().gpu_from_pci_ids_name("GH100 [H100 SXM5 80GB]");
    ASSERT_TRUE(hopper);
    EXPECT_EQ(hopper->chip, "GH100");
    EXPECT_EQ(hopper->name, "H100 SXM5 80GB");
    EXPECT_EQ(hopper->architecture, "Hopper");
    EXPECT_EQ(hopper->compute_capability, "9.0");

    // pci.ids 2023 spells this one without a space.
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GH100[H100 SXM5 80GB]")->name, "H100 SXM5 80GB");
    // Longest prefix wins: GA100 over GA10, GA10B over GA10, GP100 over GP10.
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GA100 [A100 SXM4 40GB]")->compute_capability, "8.0");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GA102GL [RTX A6000]")->compute_capability, "8.6");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GP100GL [Tesla P100 PCIe 16GB]")->compute_capability, "6.0");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GP108 [GeForce GT 1030]")->compute_capability, "6.1");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GM20B [Tegra X1]")->compute_capability, "5.3");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GB20B [GB10]")->compute_capability, "12.1");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GB202 [GeForce RTX 5090]")->architecture, "Blackwell");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GK210GL [Tesla K80]")->compute_capability, "3.7");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GK110B [GeForce GTX 780 Ti]")->compute_capability, "3.5");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GK104 [GeForce GTX 680]")->compute_capability, "3.0");
    EXPECT_EQ(builtin_kb().gpu_from_pci_ids_name("GF119 [GeForce GT 520]")->compute_capability, "2.1");

    const auto bare = builtin_kb().gpu_from_pci_ids_name("TU117M");
    ASSERT_TRUE(bare);
    EXPECT_EQ(bare->chip, "TU117M");
    EXPECT_EQ(bare->name, "");
    EXPECT_EQ(bare->compute_capability, "7.5");

    EXPECT_FALSE(builtin_kb().gpu_from_pci_ids_name("Device 2b85"));
    EXPECT_FALSE(builtin_kb().gpu_from_pci_ids_name("TS4 / B100"));
    EXPECT_FALSE(builtin_kb().gpu_from_pci_ids_name("GT200 [GeForce GTX 280]"));
    EXPECT_FALSE(builtin_kb().gpu_from_pci_ids_name(""));
}

TEST(KbGpu, KernelModules) {
    EXPECT_FALSE(builtin_kb().kernel_modules_for("Pascal")->open);
    EXPECT_TRUE(builtin_kb().kernel_modules_for("Pascal")->proprietary);
    EXPECT_TRUE(builtin_kb().kernel_modules_for("Turing")->open);
    EXPECT_TRUE(builtin_kb().kernel_modules_for("Turing")->proprietary);
    EXPECT_FALSE(builtin_kb().kernel_modules_for("Blackwell")->proprietary);
    // The branch to install: the newest one that still supports the architecture.
    EXPECT_EQ(builtin_kb().kernel_modules_for("Kepler")->driver_branch, 470);
    EXPECT_FALSE(builtin_kb().kernel_modules_for("Kepler")->open);
    EXPECT_EQ(builtin_kb().kernel_modules_for("Pascal")->driver_branch, 580);
    EXPECT_EQ(builtin_kb().kernel_modules_for("Blackwell")->driver_branch, 580);
    EXPECT_FALSE(builtin_kb().kernel_modules_for("Tesla"));
}

// --- toolkit ↔ driver ---------------------------------------------------------------------------

TEST(KbCudaDriver, MaxCudaForDriver) {
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("550.54.14"))), "12.4");  // exactly 12.4.0's minimum
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("550.54.13"))), "12.3");  // one below
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("535.104.05"))), "12.2");
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("580.65.06"))), "13.0");
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("580.65.05"))), "12.9");
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("570.26"))), "12.8");
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("525.60.13"))), "12.0");
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("525.60.12"))), "11.8");
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("470.82.01"))), "11.4");
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("610.43.02"))), "13.3");
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("999"))), "13.3");  // 13.4+ name no minimum driver
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("410.48"))), "10.0");
    EXPECT_EQ(str(builtin_kb().max_cuda_for(v("410.47"))), "none");
}

// Driver versions compare as Versions: Version::str() drops their zero padding (535.104.05).
TEST(KbCudaDriver, MinDriverForToolkit) {
    EXPECT_EQ(builtin_kb().min_driver_for(v("12.4")), v("550.54.14"));
    EXPECT_EQ(builtin_kb().min_driver_for(v("12.4.0")), v("550.54.14"));
    EXPECT_EQ(builtin_kb().min_driver_for(v("12.4.1")), v("550.54.15"));
    EXPECT_EQ(builtin_kb().min_driver_for(v("12.4.131")), v("550.54.15"));  // nvcc build number: highest below
    EXPECT_EQ(builtin_kb().min_driver_for(v("12.2.2")), v("535.104.05"));
    EXPECT_EQ(builtin_kb().min_driver_for(v("12.3.2")), v("545.23.08"));  // no Table-3 row: 12.3.1's
    EXPECT_EQ(builtin_kb().min_driver_for(v("13.0")), v("580.65.06"));
    EXPECT_EQ(builtin_kb().min_driver_for(v("10.1.243")), v("418.39"));
    EXPECT_EQ(builtin_kb().min_driver_for(v("11.0.1")), v("450.36.06"));
    EXPECT_EQ(str(builtin_kb().min_driver_for(v("13.4.1"))), "none");  // branch only (R615)
    EXPECT_EQ(str(builtin_kb().min_driver_for(v("12.7"))), "none");    // there is no CUDA 12.7
    EXPECT_EQ(str(builtin_kb().min_driver_for(v("9.2"))), "none");
}

TEST(KbCudaDriver, ToolkitRelease) {
    const auto r = builtin_kb().toolkit_release(v("12.4.1"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->runfile, "cuda_12.4.1_550.54.15_linux.run");
    EXPECT_EQ(r->driver_branch, "R550");
    EXPECT_EQ(builtin_kb().toolkit_release(v("12.3.2"))->runfile, "cuda_12.3.2_545.23.08_linux.run");
    EXPECT_EQ(builtin_kb().toolkit_release(v("13.4.1"))->driver_branch, "R615");
    EXPECT_FALSE(builtin_kb().toolkit_release(v("12.7")));
}

TEST(KbCudaDriver, MinorCompatFloor) {
    EXPECT_EQ(builtin_kb().minor_compat_floor(11), v("450.80.02"));
    EXPECT_EQ(builtin_kb().minor_compat_floor(12), v("525.60.13"));
    EXPECT_EQ(builtin_kb().minor_compat_floor(13), v("580"));
    EXPECT_EQ(str(builtin_kb().minor_compat_floor(10)), "none");
    EXPECT_EQ(str(builtin_kb().minor_compat_floor(14)), "none");
}

// --- host compiler ------------------------------------------------------------------------------

TEST(KbCudaCompiler, MaxGccAndClang) {
    EXPECT_EQ(builtin_kb().max_gcc_for(v("12.4")), 13);
    EXPECT_EQ(builtin_kb().max_gcc_for(v("12.3.2")), 12);
    EXPECT_EQ(builtin_kb().max_gcc_for(v("11.4.0")), 10);
    EXPECT_EQ(builtin_kb().max_gcc_for(v("11.4.1")), 11);
    EXPECT_EQ(builtin_kb().max_gcc_for(v("11.4.4")), 11);
    EXPECT_EQ(builtin_kb().max_gcc_for(v("13.0.2")), 15);
    EXPECT_EQ(builtin_kb().max_gcc_for(v("10.1.105")), 8);
    EXPECT_EQ(builtin_kb().max_clang_for(v("10.1.105")), 7);
    EXPECT_EQ(builtin_kb().max_clang_for(v("10.1.168")), 8);
    EXPECT_EQ(builtin_kb().max_clang_for(v("10.1.243")), 8);
    EXPECT_EQ(builtin_kb().max_clang_for(v("11.1.0")), 10);
    EXPECT_EQ(builtin_kb().max_clang_for(v("11.1.1")), 11);
    EXPECT_EQ(builtin_kb().max_clang_for(v("13.2")), 21);
    EXPECT_EQ(builtin_kb().max_gcc_for(v("13.3")), std::nullopt);  // row present, limit unknown
    EXPECT_EQ(builtin_kb().max_gcc_for(v("12.7")), std::nullopt);
    EXPECT_EQ(builtin_kb().max_gcc_for(v("9.0")), std::nullopt);
    EXPECT_EQ(builtin_kb().host_compiler_limits(v("12.2"))->min_clang, 7);
}

// --- architectures ------------------------------------------------------------------------------

TEST(KbCudaArch, ToolkitsSupporting) {
    auto range = builtin_kb().toolkits_supporting("8.9");
    ASSERT_TRUE(range);
    EXPECT_EQ(range->first.str(), "11.8");
    EXPECT_FALSE(range->last);

    range = builtin_kb().toolkits_supporting("6.1");
    ASSERT_TRUE(range);
    EXPECT_EQ(range->first.str(), "8.0");
    EXPECT_EQ(str(range->last), "12.9");

    EXPECT_EQ(str(builtin_kb().toolkits_supporting("3.5")->last), "11.8");
    EXPECT_EQ(builtin_kb().toolkits_supporting("sm_90a")->first.str(), "12.0");
    EXPECT_EQ(builtin_kb().toolkits_supporting("12.0")->first.str(), "12.8");
    EXPECT_EQ(builtin_kb().toolkits_supporting("sm_120")->first.str(), "12.8");
    EXPECT_EQ(str(builtin_kb().toolkits_supporting("10.1")->last), "12.9");  // renamed to 11.0 in 13.0
    EXPECT_EQ(builtin_kb().toolkits_supporting("11.0")->first.str(), "13.0");
    EXPECT_FALSE(builtin_kb().toolkits_supporting("8.8"));  // nvcc 13.0 knows it; first toolkit unknown
    EXPECT_FALSE(builtin_kb().toolkits_supporting("10.7"));
    EXPECT_FALSE(builtin_kb().toolkits_supporting("1.0"));
    EXPECT_EQ(builtin_kb().arch_support("sm_75")->architecture, "Turing");
    EXPECT_EQ(str(builtin_kb().arch_support("5.2")->removed_in), "13.0");
}

// --- cuDNN --------------------------------------------------------------------------------------

TEST(KbCudnn, CudaMajors) {
    EXPECT_EQ(builtin_kb().cuda_majors_for_cudnn(v("8.9.5.30")), (std::vector<int>{11, 12}));
    EXPECT_EQ(builtin_kb().cuda_majors_for_cudnn(v("9.17.0")), (std::vector<int>{12, 13}));
    EXPECT_EQ(builtin_kb().cuda_majors_for_cudnn(v("7.6.5.32")), (std::vector<int>{9, 10}));
    EXPECT_EQ(builtin_kb().cuda_majors_for_cudnn(v("8.0.1")), (std::vector<int>{10, 11}));
    EXPECT_EQ(builtin_kb().cuda_majors_for_cudnn(v("9.20.0.48")), (std::vector<int>{13}));
    EXPECT_TRUE(builtin_kb().cuda_majors_for_cudnn(v("9.2.0")).empty());
}

TEST(KbCudnn, SupportsCuda) {
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("9.1.0.70"), v("12.4")), true);
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("9.1.0.70"), v("12.4.131")), true);
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("9.1.0.70"), v("13.0")), false);
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("8.9.6"), v("11.8")), true);
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("9.5.1"), v("12.6")), true);
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("9.5.1"), v("12.8")), false);
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("9.5.1"), v("11.7")), false);
    // "11.2 Update 1": 11.2.0 is outside, 11.2.1 and later inside.
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("8.2.1"), v("11.2.0")), false);
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("8.2.1"), v("11.2.1")), true);
    EXPECT_EQ(builtin_kb().cudnn_supports_cuda(v("9.2.0"), v("12.4")), std::nullopt);
    const auto builds = builtin_kb().cudnn_builds(v("9.10.2.21"));
    ASSERT_EQ(builds.size(), 3u);
    EXPECT_EQ(builds[0].min_linux_driver, v("570.26"));
    EXPECT_EQ(builds[0].cc_max, "12.0");
}

// --- frameworks ---------------------------------------------------------------------------------

TEST(KbTorch, WheelsOfARelease) {
    const auto wheels = builtin_kb().torch_wheels(v("2.4.1"));
    ASSERT_EQ(wheels.size(), 3u);
    EXPECT_EQ(wheels[0].variant, "cu118");
    EXPECT_EQ(wheels[1].variant, "cu121");
    EXPECT_EQ(wheels[2].variant, "cu124");
    EXPECT_EQ(wheels[2].cuda.str(), "12.4");
    EXPECT_EQ(wheels[2].status, "experimental");
    EXPECT_EQ(str(wheels[2].bundled_cudnn), "9.1.0.70");

    const auto cu128 = builtin_kb().torch_wheel(v("2.8.0"), "cu128");
    ASSERT_TRUE(cu128);
    // Volta stayed in 2.8's CUDA 12.8 builds (pytorch/pytorch#160269); 2.11 dropped it.
    EXPECT_EQ(cu128->cuda_archs, (std::vector<std::string>{"7.0", "7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}));
    EXPECT_EQ(builtin_kb().torch_wheel(v("2.11.0"), "cu128")->cuda_archs,
              (std::vector<std::string>{"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}));
    EXPECT_FALSE(cu128->ptx);
    const auto cu129 = builtin_kb().torch_wheel(v("2.8"), "cu129");
    EXPECT_TRUE(cu129->ptx);
    EXPECT_EQ(builtin_kb().torch_wheel(v("2.12.0"), "cu130")->cuda_archs_aarch64,
              (std::vector<std::string>{"8.0", "9.0", "10.0", "11.0", "12.0"}));
    EXPECT_TRUE(builtin_kb().torch_wheel(v("2.9.1"), "cu128")->pypi_default);
    EXPECT_FALSE(builtin_kb().torch_wheel(v("2.9.1"), "cu126")->pypi_default);
    EXPECT_EQ(builtin_kb().torch_wheel(v("1.12.1"), "cu102")->status, "");
    EXPECT_FALSE(builtin_kb().torch_wheel(v("2.12.0"), "cu128"));  // 2.12 has no cu128 wheel
    EXPECT_TRUE(builtin_kb().torch_wheels(v("2.15")).empty());
    EXPECT_TRUE(builtin_kb().torch_wheels(v("2.1")).size() == 2u);
    EXPECT_TRUE(builtin_kb().torch_wheels(v("2.10")).size() == 3u);  // 2.10 is not 2.1
}

TEST(KbTensorflow, TestedBuild) {
    auto tf = builtin_kb().tensorflow_tested_build(v("2.16.1"));
    ASSERT_TRUE(tf);
    EXPECT_EQ(tf->cuda.str(), "12.3");
    EXPECT_EQ(tf->cudnn.str(), "8.9");
    EXPECT_EQ(builtin_kb().tensorflow_tested_build(v("2.16.2"))->tensorflow.str(), "2.16.1");
    EXPECT_EQ(builtin_kb().tensorflow_tested_build(v("2.16.0"))->tensorflow.str(), "2.16.1");
    EXPECT_EQ(builtin_kb().tensorflow_tested_build(v("2.21.0"))->cuda.str(), "12.5");
    EXPECT_EQ(builtin_kb().tensorflow_tested_build(v("1.13.2"))->tensorflow.str(), "1.13.1");
    EXPECT_EQ(builtin_kb().tensorflow_tested_build(v("1.13.2"), "Windows")->tensorflow.str(), "1.13.0");
    EXPECT_EQ(builtin_kb().tensorflow_tested_build(v("2.10"), "windows")->package, "tensorflow_gpu");
    EXPECT_FALSE(builtin_kb().tensorflow_tested_build(v("2.11"), "Windows"));  // no native-Windows GPU after 2.10
    EXPECT_FALSE(builtin_kb().tensorflow_tested_build(v("3.0")));
}

// --- distributions and packages -------------------------------------------------------------

TEST(KbDistro, DefaultGcc) {
    EXPECT_EQ(builtin_kb().default_gcc_of("ubuntu", "20.04"), 9);
    EXPECT_EQ(builtin_kb().default_gcc_of("ubuntu", "22.04"), 11);
    EXPECT_EQ(builtin_kb().default_gcc_of("ubuntu", "24.04"), 13);
    EXPECT_EQ(builtin_kb().default_gcc_of("debian", "12"), 12);
    EXPECT_EQ(builtin_kb().default_gcc_of("ubuntu", "12"), std::nullopt);
    EXPECT_EQ(builtin_kb().distro_release("ubuntu", "24.04")->cuda_repo, "ubuntu2404");
    EXPECT_EQ(builtin_kb().distro_release("debian", "12")->codename, "bookworm");
}

TEST(KbDistro, PackageNames) {
    EXPECT_EQ(builtin_kb().package_name("cuda_toolkit", {{"major", "12"}, {"minor", "4"}}), "cuda-toolkit-12-4");
    EXPECT_EQ(builtin_kb().package_name("ubuntu_driver_open", {{"branch", "580"}}), "nvidia-driver-580-open");
    EXPECT_EQ(builtin_kb().package_name("cudnn9", {{"major", "12"}}), "libcudnn9-cuda-12");
    EXPECT_EQ(builtin_kb().package_name("cudnn8", {{"cudnn", "8.9.7.29"}, {"major", "12"}, {"minor", "2"}}), "libcudnn8=8.9.7.29-1+cuda12.2");
    EXPECT_EQ(builtin_kb().package_name("cuda_keyring_url", {{"distro", "ubuntu2404"}, {"arch", "x86_64"}}),
              "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/cuda-keyring_1.1-1_all.deb");
    EXPECT_EQ(builtin_kb().package_name("cuda_toolkit", {{"major", "12"}}), std::nullopt);  // {minor} unfilled
    EXPECT_EQ(builtin_kb().package_name("no_such_package", {}), std::nullopt);
    EXPECT_EQ(builtin_kb().package_template("cuda_full")->pulls_driver, true);
    EXPECT_EQ(builtin_kb().package_template("cuda_toolkit")->pulls_driver, false);
}

TEST(KbQueries, PublishedChecksumsAreFoundByTheFileNameNvidiaGivesIt) {
    const auto* runfile = builtin_kb().installer_checksum("cuda_12.4.1_550.54.15_linux.run");
    ASSERT_NE(runfile, nullptr);
    EXPECT_EQ(runfile->kind, "cuda-runfile");
    EXPECT_EQ(runfile->release, "12.4.1");
    EXPECT_EQ(runfile->sha256, "367d2299b3a4588ab487a6d27276ca5d9ead6e394904f18bccb9e12433b9c4fb");
    EXPECT_EQ(builtin_kb().installer_checksum("cuda_12.4.1_550.54.15_linux"), nullptr);           // the exact name only
    EXPECT_EQ(builtin_kb().installer_checksum("/tmp/cuda_12.4.1_550.54.15_linux.run"), nullptr);  // a base name, not a path
    // One row per file: cuDNN 9.8.0.87 has an archive per CUDA major.
    std::size_t runfiles = 0, archives = 0;
    for (const auto* f : {"cudnn-linux-x86_64-9.8.0.87_cuda11-archive.tar.xz", "cudnn-linux-x86_64-9.8.0.87_cuda12-archive.tar.xz"})
        archives += builtin_kb().installer_checksum(f) != nullptr;
    for (const auto* f : {"cuda_11.8.0_520.61.05_linux.run", "cuda_12.6.2_560.35.03_linux.run", "cuda_13.0.1_580.82.07_linux.run"})
        runfiles += builtin_kb().installer_checksum(f) != nullptr;
    EXPECT_EQ(archives, 2u);
    EXPECT_EQ(runfiles, 3u);
}

TEST(KbSources, EveryTableNamesItsSource) {
    const auto sources = builtin_kb().sources();
    ASSERT_EQ(sources.size(), 15u);  // installer_checksums.tsv joined the 14
    EXPECT_EQ(sources.front().first, "cuda_arch_support.tsv");
    for (const auto& [name, source] : sources) {
        EXPECT_FALSE(source.empty()) << name;
    }
    EXPECT_TRUE(builtin_kb().overridden_tables().empty());
}
