// The GPU and driver rules (src/rules/driver_rules.cpp) on Snapshot literals: each fires on the
// smallest machine that has its problem and stays silent on the nearest healthy one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace {

using ::testing::HasSubstr;

/// A package event from apt's history, as the driver probe records it.
snapshot::PackageEvent driver_upgrade(const std::string& from, const std::string& to, const std::string& by) {
    return {"2024-06-12 06:41:26", "upgrade", "libnvidia-compute-550", from, to, by, "/var/log/apt/history.log"};
}

}  // namespace

// --- vm-without-gpu-passthrough ---------------------------------------------------------------

TEST(RulesDriver, VmWithoutGpuFires) {
    auto s = ubuntu_machine();
    s.platform.virtualization = "vmware";
    const auto found = fired("vm-without-gpu-passthrough", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_EQ(found[0].layer, snapshot::Layer::gpu);
    EXPECT_THAT(found[0].title, HasSubstr("vmware"));
    EXPECT_TRUE(evidence_mentions(found[0], "virtual machine: vmware"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, VmWithPassedThroughGpuIsSilent) {
    auto s = gpu_machine();
    s.platform.virtualization = "kvm";
    EXPECT_TRUE(silent("vm-without-gpu-passthrough", s));
}

TEST(RulesDriver, WslIsNoVmWithoutGpu) {
    // WSL2 runs under Hyper-V but sees its GPU through /usr/lib/wsl, not on a PCI bus.
    auto s = ubuntu_machine();
    s.platform.virtualization = "microsoft";
    s.platform.wsl = true;
    EXPECT_TRUE(silent("vm-without-gpu-passthrough", s));
}

TEST(RulesDriver, BareMetalWithoutGpuIsSilent) { EXPECT_TRUE(silent("vm-without-gpu-passthrough", ubuntu_machine())); }

// --- nouveau-loaded ---------------------------------------------------------------------------

TEST(RulesDriver, NouveauBoundToGpuFires) {
    auto s = ubuntu_machine();
    s.gpus = {gpu("GeForce RTX 4090", "8.9", "Ada Lovelace")};
    s.gpus[0].bound_driver = "nouveau";
    s.driver.loaded_modules = {"nouveau"};
    const auto found = fired("nouveau-loaded", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("nouveau"));
    EXPECT_TRUE(evidence_mentions(found[0], "/sys/bus/pci/devices/0000:01:00.0/driver"));
    EXPECT_TRUE(evidence_mentions(found[0], "nouveau is loaded"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, NouveauModuleAloneFires) {
    // Loaded but bound to nothing (the GPU sits unbound): it still keeps nvidia from binding.
    auto s = ubuntu_machine();
    s.gpus = {gpu("GeForce RTX 4090", "8.9", "Ada Lovelace")};
    s.gpus[0].bound_driver = "";
    s.driver.loaded_modules = {"drm", "nouveau"};
    const auto found = fired("nouveau-loaded", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(evidence_mentions(found[0], "/proc/modules"));
}

TEST(RulesDriver, NvidiaBoundAndLoadedIsNoNouveau) { EXPECT_TRUE(silent("nouveau-loaded", gpu_machine())); }

// --- secure-boot-blocks-module ----------------------------------------------------------------

namespace {
snapshot::Snapshot secure_boot_machine() {
    auto s = ubuntu_machine();
    s.gpus = {gpu("GeForce RTX 4090", "8.9", "Ada Lovelace")};
    s.driver.user_space_versions = {"550.54.14"};
    s.platform.secure_boot = "enabled";
    s.platform.dkms = {
        {.module = "nvidia", .version = "550.54.14", .kernel = "6.5.0-27-generic", .built_for_running_kernel = true, .build_error = ""}};
    return s;
}
}  // namespace

TEST(RulesDriver, SecureBootWithDkmsModuleNotLoadedFires) {
    const auto found = fired("secure-boot-blocks-module", secure_boot_machine());
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("550.54.14"));
    EXPECT_TRUE(evidence_mentions(found[0], "/var/lib/dkms/nvidia/550.54.14/6.5.0-27-generic"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, SecureBootOffIsSilent) {
    auto s = secure_boot_machine();
    s.platform.secure_boot = "disabled";
    EXPECT_TRUE(silent("secure-boot-blocks-module", s));
}

TEST(RulesDriver, SecureBootWithModuleLoadedIsSilent) {
    // The MOK was enrolled: the signed module loaded.
    auto s = secure_boot_machine();
    s.driver = driver("550.54.14");
    EXPECT_TRUE(silent("secure-boot-blocks-module", s));
}

TEST(RulesDriver, SecureBootWithoutDkmsModuleIsSilent) {
    // Nothing was built for a kernel: there is no module for Secure Boot to reject.
    auto s = secure_boot_machine();
    s.platform.dkms = {{.module = "nvidia", .version = "550.54.14", .kernel = "", .built_for_running_kernel = false, .build_error = ""}};
    EXPECT_TRUE(silent("secure-boot-blocks-module", s));
}

// --- driver-module-not-built-for-kernel ---------------------------------------------------------

TEST(RulesDriver, ModuleBuiltForAnOlderKernelOnlyFires) {
    auto s = ubuntu_machine();
    s.gpus = {gpu("GeForce RTX 4090", "8.9", "Ada Lovelace")};
    s.driver.user_space_versions = {"550.54.14"};
    s.platform.kernel = "6.8.0-40-generic";
    s.platform.dkms = {
        {.module = "nvidia", .version = "550.54.14", .kernel = "6.5.0-27-generic", .built_for_running_kernel = false, .build_error = ""}};
    const auto found = fired("driver-module-not-built-for-kernel", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("6.8.0-40-generic"));
    EXPECT_THAT(found[0].fix, HasSubstr("linux-headers-6.8.0-40-generic"));
    EXPECT_THAT(found[0].fix, HasSubstr("sudo dkms autoinstall -k 6.8.0-40-generic"));
    EXPECT_TRUE(evidence_mentions(found[0], "/var/lib/dkms/nvidia/550.54.14"));
}

TEST(RulesDriver, ModuleBuiltForTheRunningKernelOrLoadedIsSilent) {
    auto s = ubuntu_machine();
    s.gpus = {gpu("GeForce RTX 4090", "8.9", "Ada Lovelace")};
    s.platform.dkms = {
        {.module = "nvidia", .version = "550.54.14", .kernel = "6.5.0-27-generic", .built_for_running_kernel = true, .build_error = ""}};
    EXPECT_TRUE(silent("driver-module-not-built-for-kernel", s));  // built: a modprobe away
    s.platform.dkms.clear();
    EXPECT_TRUE(silent("driver-module-not-built-for-kernel", s));  // no DKMS: a runfile or prebuilt module
    s.platform.kernel = "6.8.0-40-generic";
    s.platform.dkms = {
        {.module = "nvidia", .version = "550.54.14", .kernel = "6.5.0-27-generic", .built_for_running_kernel = false, .build_error = ""}};
    s.driver = driver("550.54.14");  // loaded after all (a module built outside DKMS)
    EXPECT_TRUE(silent("driver-module-not-built-for-kernel", s));
}

// --- gpu-without-driver -----------------------------------------------------------------------

TEST(RulesDriver, GpuWithoutDriverFires) {
    auto s = ubuntu_machine();
    s.gpus = {gpu("GeForce RTX 4090", "8.9", "Ada Lovelace", "0000:41:00.0")};
    const auto found = fired("gpu-without-driver", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("GeForce RTX 4090 at 0000:41:00.0"));
    EXPECT_TRUE(evidence_mentions(found[0], "/proc/driver/nvidia/version"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, GpuWithLibrariesButNoModuleFires) {
    auto s = ubuntu_machine();
    s.gpus = {gpu("", "8.9", "Ada Lovelace")};
    s.gpus[0].pci_device_id = "10de:2684";
    s.driver.user_space_versions = {"550.54.14"};
    const auto found = fired("gpu-without-driver", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("10de:2684"));  // an unnamed GPU by its PCI id
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, GpuWithModuleLoadedIsSilent) { EXPECT_TRUE(silent("gpu-without-driver", gpu_machine())); }

TEST(RulesDriver, WslGpuNeedsNoLinuxModule) {
    auto s = ubuntu_machine();
    s.platform.wsl = true;
    s.gpus = {gpu("GeForce RTX 4090", "8.9", "Ada Lovelace")};
    EXPECT_TRUE(silent("gpu-without-driver", s));
}

// --- driver-library-mismatch ------------------------------------------------------------------

TEST(RulesDriver, ModuleAndLibrariesDifferFires) {
    auto s = gpu_machine("550.54.14");
    s.driver.user_space_versions = {"550.90.07"};
    s.driver.libraries = {{"libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07", "550.90.07"}};
    s.driver.package_events = {driver_upgrade("550.54.14-0ubuntu1", "550.90.07-0ubuntu1", "/usr/bin/unattended-upgrade")};
    const auto found = fired("driver-library-mismatch", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("kernel module 550.54.14"));
    EXPECT_THAT(found[0].title, HasSubstr("550.90.07"));
    EXPECT_TRUE(evidence_mentions(found[0], "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07"));
    EXPECT_TRUE(evidence_mentions(found[0], "by /usr/bin/unattended-upgrade"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, ModuleAndLibrariesEqualIsSilent) {
    auto s = gpu_machine("550.54.14");
    s.driver.package_events = {driver_upgrade("550.40.07-0ubuntu1", "550.54.14-0ubuntu1", "apt-get upgrade")};  // rebooted since
    EXPECT_TRUE(silent("driver-library-mismatch", s));
}

TEST(RulesDriver, LibrariesWithoutModuleIsNoMismatch) {
    // No module at all is gpu-without-driver's case, not a version mismatch.
    auto s = ubuntu_machine();
    s.driver.user_space_versions = {"550.90.07"};
    EXPECT_TRUE(silent("driver-library-mismatch", s));
}

// --- driver-too-old-for-toolkit ---------------------------------------------------------------
// CUDA 12.4.131 (nvcc of 12.4 Update 1) needs 550.54.15; CUDA 12's minor-version floor is 525.60.13.

TEST(RulesDriver, DriverBelowMinorCompatFloorIsAnError) {
    auto s = gpu_machine("520.61.05");
    s.toolkits = {toolkit("12.4.131")};
    const auto found = fired("driver-too-old-for-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("Driver 520.61.05 is too old for CUDA 12.4.131"));
    EXPECT_THAT(found[0].title, HasSubstr("525.60.13"));
    EXPECT_TRUE(evidence_mentions(found[0], "needs ≥ 550.54.15"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, DriverBetweenFloorAndMinimumIsAWarning) {
    auto s = gpu_machine("550.54.14");  // one below 12.4 Update 1's minimum
    s.toolkits = {toolkit("12.4.131")};
    const auto found = fired("driver-too-old-for-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("minimum 550.54.15"));
    EXPECT_THAT(found[0].title, HasSubstr("minor-version compatibility"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, DriverExactlyAtToolkitMinimumIsSilent) {
    auto s = gpu_machine("550.54.15");
    s.toolkits = {toolkit("12.4.131")};
    EXPECT_TRUE(silent("driver-too-old-for-toolkit", s));
}

TEST(RulesDriver, OldDriverWithCuda10ToolkitIsAnErrorWithoutFloor) {
    // CUDA 10 has no minor-version compatibility: below the minimum is an error at once.
    auto s = gpu_machine("418.39");
    s.toolkits = {toolkit("10.2.89")};
    const auto found = fired("driver-too-old-for-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("needs ≥ 440.33"));
}

TEST(RulesDriver, PipToolkitIsNotJudgedAgainstTheDriver) {
    // The nvidia-cuda-runtime wheel tree is a framework's runtime; driver-too-old-for-framework judges that.
    auto s = gpu_machine("520.61.05");
    auto wheel = toolkit("12.4.127", "/home/alice/.local/lib/python3.10/site-packages/nvidia/cuda_runtime");
    wheel.install_method = snapshot::InstallMethod::pip;
    wheel.has_nvcc = false;
    s.toolkits = {wheel};
    EXPECT_TRUE(silent("driver-too-old-for-toolkit", s));
}

TEST(RulesDriver, OneFindingPerToolkitTooNew) {
    auto s = gpu_machine("535.104.05");
    s.toolkits = {toolkit("11.8.89"), toolkit("12.4.131"), toolkit("12.6.77")};
    const auto found = fired("driver-too-old-for-toolkit", s);
    ASSERT_EQ(found.size(), 2u);  // 11.8 runs on 535
    EXPECT_THAT(found[0].title, HasSubstr("CUDA 12.4.131"));
    EXPECT_THAT(found[1].title, HasSubstr("CUDA 12.6.77"));
}

// --- driver-too-old-for-framework -------------------------------------------------------------
// torch built with CUDA 12.1 needs 530.30.02; CUDA 12's floor is 525.60.13.

TEST(RulesDriver, DriverBelowFloorForFrameworkIsAnError) {
    auto s = gpu_machine("520.61.05");
    s.frameworks = {framework("torch", "2.4.0+cu121", "12.1")};
    const auto found = fired("driver-too-old-for-framework", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("torch 2.4.0+cu121"));
    EXPECT_THAT(found[0].title, HasSubstr("needs ≥ 525.60.13"));
    EXPECT_TRUE(evidence_mentions(found[0], "built with CUDA 12.1"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, DriverAtFloorBelowFrameworkMinimumIsAWarning) {
    auto s = gpu_machine("525.60.13");
    s.frameworks = {framework("torch", "2.4.0+cu121", "12.1")};
    const auto found = fired("driver-too-old-for-framework", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("minimum 530.30.02"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, DriverAtFrameworkMinimumIsSilent) {
    auto s = gpu_machine("530.30.02");
    s.frameworks = {framework("torch", "2.4.0+cu121", "12.1")};
    EXPECT_TRUE(silent("driver-too-old-for-framework", s));
}

TEST(RulesDriver, CpuBuildNeedsNoDriver) {
    auto s = gpu_machine("520.61.05");
    s.frameworks = {framework("torch", "2.4.0+cpu", std::nullopt)};
    EXPECT_TRUE(silent("driver-too-old-for-framework", s));
}

// --- smi-cuda-version-is-not-toolkit ----------------------------------------------------------

TEST(RulesDriver, SmiCudaVersionAboveToolkitFires) {
    auto s = gpu_machine("550.54.14");
    s.driver.max_cuda = "12.4";
    s.toolkits = {toolkit("12.1.105")};
    const auto found = fired("smi-cuda-version-is-not-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::info);
    EXPECT_THAT(found[0].title, HasSubstr("CUDA Version: 12.4"));
    EXPECT_THAT(found[0].title, HasSubstr("CUDA 12.1.105 (/usr/local/cuda-12.1)"));
    EXPECT_TRUE(evidence_mentions(found[0], "driver 550.54.14"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, SmiCudaVersionEqualToToolkitIsSilent) {
    auto s = gpu_machine("550.54.14");
    s.driver.max_cuda = "12.4";
    s.toolkits = {toolkit("12.4.131")};
    EXPECT_TRUE(silent("smi-cuda-version-is-not-toolkit", s));
}

TEST(RulesDriver, SmiCudaVersionWithoutToolkitIsSilent) {
    auto s = gpu_machine("550.54.14");
    s.driver.max_cuda = "12.4";
    EXPECT_TRUE(silent("smi-cuda-version-is-not-toolkit", s));
}

// With CUDOCTOR_OVERRIDE_CUDA set on a machine without any driver (the probe sets max_cuda from
// the override alone) the rule read user_space_versions.back() of an empty list and `check` died
// with SIGSEGV; it now names where the limit came from and no driver version it does not have.
TEST(RulesDriver, SmiCudaVersionFromOverrideWithoutDriver) {
    auto s = ubuntu_machine();
    s.driver.max_cuda = "12.4";
    s.driver.max_cuda_source = "override";
    s.overrides = {"CUDOCTOR_OVERRIDE_CUDA=12.4"};
    s.toolkits = {toolkit("12.1.105")};
    const auto found = rules::find_rule("smi-cuda-version-is-not-toolkit")->check(s, kb::Kb::builtin());
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("12.4"));
    EXPECT_TRUE(evidence_mentions(found[0], "driver limit (override)"));
}

// --- wsl-linux-driver-installed ---------------------------------------------------------------

TEST(RulesDriver, LinuxDriverPackageInsideWslFires) {
    auto s = ubuntu_machine();
    s.platform.wsl = true;
    s.driver.packages = {"nvidia-driver-550 550.54.14-0ubuntu1"};
    s.driver.libraries = {{"libcuda.so", "/usr/lib/wsl/lib/libcuda.so.1", ""},
                          {"libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14", "550.54.14"}};
    const auto found = fired("wsl-linux-driver-installed", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].title, HasSubstr("WSL2"));
    EXPECT_TRUE(evidence_mentions(found[0], "nvidia-driver-550 550.54.14-0ubuntu1"));
    EXPECT_TRUE(evidence_mentions(found[0], "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"));
    EXPECT_FALSE(evidence_mentions(found[0], "/usr/lib/wsl/lib"));  // the Windows driver's own library is no fault
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesDriver, WslWithOnlyTheWindowsDriverIsSilent) {
    auto s = ubuntu_machine();
    s.platform.wsl = true;
    s.driver.libraries = {{"libcuda.so", "/usr/lib/wsl/lib/libcuda.so.1", ""}};
    s.driver.user_space_versions = {"555.99"};
    EXPECT_TRUE(silent("wsl-linux-driver-installed", s));
}

TEST(RulesDriver, LinuxDriverOutsideWslIsNoWslProblem) {
    auto s = gpu_machine("550.54.14");
    s.driver.packages = {"nvidia-driver-550 550.54.14-0ubuntu1"};
    EXPECT_TRUE(silent("wsl-linux-driver-installed", s));
}

}  // namespace cudoctor::test::rule_cases

// --- WSL2: the Windows driver, judged by Table 3's Windows column --------------------------------

namespace cudoctor::test::rule_cases {
namespace {

/// ubuntu_machine() under WSL2 with its GPU, the Windows driver `windows` and no Linux driver.
snapshot::Snapshot wsl_machine(const std::string& windows) {
    auto s = ubuntu_machine();
    s.platform.wsl = true;
    s.platform.wsl_gpu = true;
    s.platform.kernel = "5.15.153.1-microsoft-standard-WSL2";
    s.driver.windows_version = windows;
    return s;
}

}  // namespace
}  // namespace cudoctor::test::rule_cases

TEST(RulesDriver, WslWindowsDriverIsJudgedByTheWindowsColumn) {
    using namespace cudoctor::test::rule_cases;
    // CUDA 12.4.0 needs 550.54.14 on Linux but 551.61 on Windows; 551.50 would pass the Linux
    // column and still be too old. Inside minor-version compatibility (Windows floor 527.41): a warning.
    auto s = wsl_machine("551.50");
    auto tk = toolkit("12.4.0");
    s.toolkits = {tk};
    const auto found = fired("driver-too-old-for-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, cudoctor::snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, ::testing::HasSubstr("Windows driver 551.50"));
    EXPECT_THAT(found[0].title, ::testing::HasSubstr("551.61"));
    EXPECT_THAT(found[0].fix, ::testing::HasSubstr("Windows"));
    EXPECT_THAT(found[0].fix, ::testing::Not(::testing::HasSubstr("apt-get")));  // never a Linux driver inside WSL2

    s.driver.windows_version = "551.86";
    EXPECT_TRUE(silent("driver-too-old-for-toolkit", s));
}

TEST(RulesDriver, WslWindowsDriverBelowTheFloorIsAnError) {
    using namespace cudoctor::test::rule_cases;
    auto s = wsl_machine("516.94");  // CUDA 11.7's Windows driver, below CUDA 12's Windows floor 527.41
    s.frameworks = {framework("torch", "2.4.0+cu121", "12.1")};
    const auto found = fired("driver-too-old-for-framework", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, cudoctor::snapshot::Severity::error);
    EXPECT_THAT(found[0].title, ::testing::HasSubstr("Windows driver 516.94"));
    EXPECT_THAT(found[0].title, ::testing::HasSubstr("527.41"));
}

// --- wsl-memory-limit-low ---------------------------------------------------------------------------

TEST(RulesDriver, WslMemoryLimitBelowTwoBuildJobsFires) {
    using namespace cudoctor::test::rule_cases;
    auto s = wsl_machine("551.86");
    s.platform.wslconfig_path = "/mnt/c/Users/alice/.wslconfig";
    s.platform.wsl_memory_limit = 4ull << 30;
    s.platform.wsl_memory_line = 2;
    const auto found = fired("wsl-memory-limit-low", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, cudoctor::snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, ::testing::HasSubstr("4.0 GB"));
    EXPECT_THAT(found[0].fix, ::testing::HasSubstr("sed -i '2d' /mnt/c/Users/alice/.wslconfig"));
    EXPECT_THAT(found[0].fix, ::testing::HasSubstr("wsl --shutdown"));

    s.platform.wsl_memory_limit = 8ull << 30;  // two jobs fit
    EXPECT_TRUE(silent("wsl-memory-limit-low", s));
    s.platform.wsl_memory_limit = std::nullopt;  // no limit set: WSL's default
    EXPECT_TRUE(silent("wsl-memory-limit-low", s));
}
