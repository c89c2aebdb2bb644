// Every rule on fixture machines: a variation of a real fixture that must fire it (with the fix
// written for that machine), and the machines where it must stay silent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/json_query.hpp"
#include "support/mutable_root.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;

std::string all_findings(const json& snap) { return snap["findings"].dump(2); }

#define EXPECT_FIRES(snap, id, severity)                                            \
    do {                                                                            \
        const json* f_ = finding(snap, id);                                         \
        ASSERT_NE(f_, nullptr) << (id) << " did not fire:\n" << all_findings(snap); \
        EXPECT_EQ((*f_)["severity"], severity) << all_findings(snap);               \
    } while (0)

#define EXPECT_SILENT(snap, id) EXPECT_EQ(finding(snap, id), nullptr) << all_findings(snap)

const std::string kHealthy = "ubuntu2204-rtx4060ti";
const std::string kTorchVersionPy = "/home/alice/.local/lib/python3.10/site-packages/torch/version.py";

std::string torch_version_py(const std::string& version, const std::string& cuda) {
    return "__version__ = '" + version + "'\ndebug = False\ncuda: Optional[str] = " + (cuda.empty() ? "None" : "'" + cuda + "'") +
           "\nhip: Optional[str] = None\n";
}

/// The healthy machine with its nvidia kernel module not loaded.
MutableRoot without_module(const std::string& scenario = kHealthy) {
    MutableRoot r(scenario);
    r.remove("/proc/driver/nvidia").remove("/sys/module/nvidia").drop_lines("/proc/modules", "nvidia");
    return r;
}

}  // namespace

TEST(Rules, HealthyMachineHasNoErrorsAndNoWarnings) {
    auto snap = MutableRoot(kHealthy).check();
    for (const auto& f : snap["findings"]) EXPECT_EQ(f["severity"], "info") << f.dump(2);
}

TEST(Rules, EveryRuleIdIsListedAndExplained) {
    auto run = run_cudoctor({"rules"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    // Not clang-formatted: the 28 rule ids, packed.
    // clang-format off
    for (const char* id :
         {"gpu-without-driver", "nouveau-loaded", "secure-boot-blocks-module", "driver-library-mismatch", "driver-too-old-for-toolkit",
          "driver-too-old-for-framework", "smi-cuda-version-is-not-toolkit", "wsl-linux-driver-installed", "vm-without-gpu-passthrough",
          "gpu-arch-unsupported-by-toolkit", "gcc-too-new-for-toolkit", "toolkit-not-on-path", "nvcc-shadowed", "cuda-home-invalid",
          "cuda-symlink-dangling", "ld-library-path-missing-dir", "ld-library-path-empty-entry", "cudart-not-loadable",
          "multiple-cudart-on-loader-path", "cudnn-cuda-mismatch", "cudnn-header-library-mismatch", "cudnn-missing-in-default-toolkit",
          "framework-cpu-only-build", "framework-gpu-arch-unsupported", "tensorflow-cuda-mismatch", "extension-build-cuda-mismatch",
          "conda-cuda-runtime-conflict", "triton-compiler-missing"}) {
        // clang-format on
        EXPECT_NE(run.out.find(id), std::string::npos) << id;
        auto one = run_cudoctor({"rules", id});
        EXPECT_EQ(one.exit_code, 0) << id;
        EXPECT_NE(one.out.find("why"), std::string::npos) << one.out;
    }
    EXPECT_EQ(run_cudoctor({"rules", "no-such-rule"}).exit_code, 2);
}

TEST(Rules, GpuWithoutDriver) {
    auto snap = without_module().check();
    EXPECT_FIRES(snap, "gpu-without-driver", "error");
    // The libraries are installed: the fix loads the module rather than installing a driver.
    EXPECT_NE((*finding(snap, "gpu-without-driver"))["fix"].get<std::string>().find("sudo modprobe nvidia"), std::string::npos);
    EXPECT_SILENT(MutableRoot("wsl2").check(), "gpu-without-driver");  // no module under WSL2 is normal
    EXPECT_SILENT(MutableRoot("cpu-only-conda").check(), "gpu-without-driver");
}

TEST(Rules, NouveauIsTheRootCauseOfTheMissingDriver) {
    auto snap = MutableRoot("nouveau").check();
    EXPECT_FIRES(snap, "nouveau-loaded", "error");
    EXPECT_FIRES(snap, "gpu-without-driver", "error");
    EXPECT_EQ((*finding(snap, "gpu-without-driver"))["consequence_of"], "nouveau-loaded");
    EXPECT_EQ(snap["findings"][0]["id"], "nouveau-loaded");  // root cause first
    const auto fix = (*finding(snap, "nouveau-loaded"))["fix"].get<std::string>();
    EXPECT_NE(fix.find("/etc/modprobe.d/blacklist-nouveau.conf"), std::string::npos);
    EXPECT_NE(fix.find("sudo update-initramfs -u"), std::string::npos);
    // An RTX 3080 (Ampere) on Ubuntu: the 580 branch with open kernel modules.
    EXPECT_NE(fix.find("nvidia-driver-580-open"), std::string::npos) << fix;
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "nouveau-loaded");
}

TEST(Rules, SecureBootBlocksTheDkmsModule) {
    auto r = without_module();
    r.write("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", std::string("\x06\x00\x00\x00\x01", 5));
    auto snap = r.check();
    EXPECT_FIRES(snap, "secure-boot-blocks-module", "error");
    EXPECT_EQ((*finding(snap, "gpu-without-driver"))["consequence_of"], "secure-boot-blocks-module");
    EXPECT_NE((*finding(snap, "secure-boot-blocks-module"))["fix"].get<std::string>().find("mokutil --import"), std::string::npos);
    EXPECT_SILENT(without_module().check(), "secure-boot-blocks-module");  // Secure Boot off
}

TEST(Rules, DriverModuleNotBuiltForTheRunningKernel) {
    // A kernel upgrade (6.5.0-27 -> 6.8.0-40) without its headers: DKMS never built nvidia for it.
    const std::string k = "6.8.0-40-generic";
    auto snap = MutableRoot("ubuntu2204-kernel-upgrade").check();
    EXPECT_FIRES(snap, "driver-module-not-built-for-kernel", "error");
    EXPECT_EQ((*finding(snap, "gpu-without-driver"))["consequence_of"], "driver-module-not-built-for-kernel");
    const std::string fix = (*finding(snap, "driver-module-not-built-for-kernel"))["fix"];
    EXPECT_NE(fix.find("sudo apt-get install -y linux-headers-" + k + "\nsudo dkms autoinstall -k " + k), std::string::npos) << fix;
    EXPECT_EQ(fix.find("$(uname -r)"), std::string::npos) << "the exact kernel of this machine, not a shell expansion";
    // A failed build leaves build/make.log: its first error is named before the rebuild.
    MutableRoot failed("ubuntu2204-kernel-upgrade");
    failed.write("/var/lib/dkms/nvidia/550.54.15/build/make.log",
                 "DKMS make.log for nvidia-550.54.15 for kernel " + k +
                     " (x86_64)\nwarning: the compiler differs from the one used to build the kernel\n"
                     "  CC [M]  /var/lib/dkms/nvidia/550.54.15/build/nvidia/nv.o\n"
                     "cc: error: unrecognized command-line option '-ftrivial-auto-var-init=zero'\n"
                     "make[3]: *** [scripts/Makefile.build:243: nvidia/nv.o] Error 1\n");
    auto broken = failed.check();
    const std::string fix2 = (*finding(broken, "driver-module-not-built-for-kernel"))["fix"];
    EXPECT_TRUE(fix2.starts_with("# the last build failed (make.log): cc: error: unrecognized command-line option")) << fix2;
    EXPECT_NE(all_findings(broken).find("/var/lib/dkms/nvidia/550.54.15/build/make.log"), std::string::npos) << all_findings(broken);
    // Built for the running kernel but not loaded is another cause (gpu-without-driver's modprobe).
    EXPECT_SILENT(without_module().check(), "driver-module-not-built-for-kernel");
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "driver-module-not-built-for-kernel");
    // Secure Boot on as well: the module was never built for this kernel, so no signature is to blame.
    MutableRoot sb("ubuntu2204-kernel-upgrade");
    sb.write("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", std::string("\x06\x00\x00\x00\x01", 5));
    auto both = sb.check();
    EXPECT_FIRES(both, "driver-module-not-built-for-kernel", "error");
    EXPECT_SILENT(both, "secure-boot-blocks-module");
}

TEST(Rules, DriverLibraryMismatchNamesTheUpgrade) {
    auto snap = MutableRoot("driver-mismatch").check();
    EXPECT_FIRES(snap, "driver-library-mismatch", "error");
    const auto& f = *finding(snap, "driver-library-mismatch");
    EXPECT_NE(f["title"].get<std::string>().find("535.183.01"), std::string::npos);
    EXPECT_NE(f["title"].get<std::string>().find("545.29.06"), std::string::npos);
    EXPECT_NE(f["evidence"].dump().find("unattended-upgrade"), std::string::npos) << f.dump(2);
    EXPECT_NE(f["fix"].get<std::string>().find("Package-Blacklist"), std::string::npos);
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "driver-library-mismatch");
}

TEST(Rules, DriverTooOldForToolkitWarnsWithinMinorCompatibilityAndErrsBelow) {
    auto within = MutableRoot(kHealthy).env("CUDOCTOR_OVERRIDE_DRIVER_VERSION", "535.104.05").check();
    EXPECT_FIRES(within, "driver-too-old-for-toolkit", "warning");
    auto below = MutableRoot(kHealthy).env("CUDOCTOR_OVERRIDE_DRIVER_VERSION", "470.82.01").check();
    EXPECT_FIRES(below, "driver-too-old-for-toolkit", "error");
    EXPECT_NE((*finding(below, "driver-too-old-for-toolkit"))["fix"].get<std::string>().find("nvidia-driver-580-open"), std::string::npos);
    EXPECT_SILENT(MutableRoot("vmware-no-gpu").check(), "driver-too-old-for-toolkit");  // no driver at all: nothing to compare
}

TEST(Rules, DriverTooOldForFramework) {
    auto snap = MutableRoot(kHealthy).env("CUDOCTOR_OVERRIDE_DRIVER_VERSION", "470.82.01").check();
    EXPECT_FIRES(snap, "driver-too-old-for-framework", "error");
    EXPECT_NE((*finding(snap, "driver-too-old-for-framework"))["title"].get<std::string>().find("torch 2.4.0+cu121"), std::string::npos);
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "driver-too-old-for-framework");
}

TEST(Rules, SmiCudaVersionIsNotTheToolkit) {
    auto snap = MutableRoot("server-three-toolkits").check();
    EXPECT_FIRES(snap, "smi-cuda-version-is-not-toolkit", "info");
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "smi-cuda-version-is-not-toolkit");  // 12.4 driver, 12.4 toolkit
}

TEST(Rules, WslWithALinuxDriver) {
    auto r = MutableRoot("wsl2");
    r.write("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "");
    auto snap = r.check();
    EXPECT_FIRES(snap, "wsl-linux-driver-installed", "error");
    EXPECT_SILENT(MutableRoot("wsl2").check(), "wsl-linux-driver-installed");
}

TEST(Rules, VirtualMachineWithoutPassthrough) {
    auto snap = MutableRoot("vmware-no-gpu").check();
    EXPECT_FIRES(snap, "vm-without-gpu-passthrough", "error");
    EXPECT_NE((*finding(snap, "vm-without-gpu-passthrough"))["fix"].get<std::string>().find("DirectPath I/O"), std::string::npos);
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "vm-without-gpu-passthrough");
}

TEST(Rules, GpuArchitectureUnknownToTheToolkit) {
    auto r = MutableRoot(kHealthy);
    r.write("/sys/bus/pci/devices/0000:01:00.0/device", "0x2b85\n");  // an RTX 5090: compute 12.0 needs CUDA 12.8
    auto snap = r.check();
    EXPECT_FIRES(snap, "gpu-arch-unsupported-by-toolkit", "error");
    EXPECT_NE((*finding(snap, "gpu-arch-unsupported-by-toolkit"))["title"].get<std::string>().find("12.8"), std::string::npos);
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "gpu-arch-unsupported-by-toolkit");
}

TEST(Rules, GccTooNewForTheToolkit) {
    auto snap = MutableRoot("ubuntu2404-cuda118").check();
    EXPECT_FIRES(snap, "gcc-too-new-for-toolkit", "error");
    const auto fix = (*finding(snap, "gcc-too-new-for-toolkit"))["fix"].get<std::string>();
    EXPECT_NE(fix.find("sudo apt-get install -y gcc-11 g++-11"), std::string::npos) << fix;  // gcc-11 is not installed there
    EXPECT_NE(fix.find("-ccbin /usr/bin/g++-11"), std::string::npos);
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "gcc-too-new-for-toolkit");
}

TEST(Rules, ToolkitNotOnPath) {
    auto snap = MutableRoot(kHealthy).env("PATH", "/usr/local/bin:/usr/bin:/bin").check();
    EXPECT_FIRES(snap, "toolkit-not-on-path", "warning");
    EXPECT_NE((*finding(snap, "toolkit-not-on-path"))["fix"].get<std::string>().find("export PATH=/usr/local/cuda/bin"), std::string::npos);
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "toolkit-not-on-path");
}

TEST(Rules, NvccShadowedAndCudaHomeElsewhere) {
    auto snap = MutableRoot("server-three-toolkits").check();
    EXPECT_FIRES(snap, "nvcc-shadowed", "warning");
    EXPECT_FIRES(snap, "cuda-home-invalid", "warning");
    EXPECT_EQ((*finding(snap, "cuda-home-invalid"))["consequence_of"], "nvcc-shadowed");
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "nvcc-shadowed");
}

TEST(Rules, BrokenInputsDanglingLinkMissingFoldersEmptyEntries) {
    auto snap = MutableRoot("broken-inputs").check();
    EXPECT_FIRES(snap, "cuda-symlink-dangling", "error");
    EXPECT_FIRES(snap, "cuda-home-invalid", "error");
    EXPECT_FIRES(snap, "ld-library-path-missing-dir", "warning");
    EXPECT_FIRES(snap, "ld-library-path-empty-entry", "warning");
    auto healthy = MutableRoot(kHealthy).check();
    for (const char* id : {"cuda-symlink-dangling", "cuda-home-invalid", "ld-library-path-missing-dir", "ld-library-path-empty-entry"})
        EXPECT_SILENT(healthy, id);
}

TEST(Rules, CudartNotLoadable) {
    auto snap = MutableRoot(kHealthy).env("LD_LIBRARY_PATH", std::nullopt).check();
    EXPECT_FIRES(snap, "cudart-not-loadable", "warning");
    const auto fix = (*finding(snap, "cudart-not-loadable"))["fix"].get<std::string>();
    EXPECT_NE(fix.find("/etc/ld.so.conf.d/cuda-12-4.conf"), std::string::npos) << fix;
    EXPECT_NE(fix.find("sudo ldconfig"), std::string::npos);
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "cudart-not-loadable");
}

TEST(Rules, MultipleCudartOnTheLoaderPath) {
    auto snap = MutableRoot("server-three-toolkits").check();
    EXPECT_FIRES(snap, "multiple-cudart-on-loader-path", "warning");
    EXPECT_NE((*finding(snap, "multiple-cudart-on-loader-path"))["title"].get<std::string>().find("libcudart.so.12"), std::string::npos);
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "multiple-cudart-on-loader-path");
}

TEST(Rules, CudnnBuiltForAnotherCuda) {
    auto r = MutableRoot(kHealthy);
    r.write(kTorchVersionPy, torch_version_py("2.4.0+cu118", "11.8"));  // the pip cuDNN wheel is cu12
    auto snap = r.check();
    EXPECT_FIRES(snap, "cudnn-cuda-mismatch", "error");
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "cudnn-cuda-mismatch");
    EXPECT_SILENT(MutableRoot("cpu-only-conda").check(), "cudnn-cuda-mismatch");  // cuDNN 8.2.1 for 11.3 with cudatoolkit 11.3
}

TEST(Rules, CudnnHeaderAndLibraryDisagree) {
    auto r = MutableRoot(kHealthy);
    r.write("/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudnn.so.9.2.1", "");
    auto snap = r.check();
    EXPECT_FIRES(snap, "cudnn-header-library-mismatch", "error");
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "cudnn-header-library-mismatch");
}

TEST(Rules, CudnnOnlyInANonDefaultToolkit) {
    auto r = MutableRoot("server-three-toolkits");
    r.write("/usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudnn.so.8.9.7", "")
        .write("/usr/local/cuda-11.8/targets/x86_64-linux/include/cudnn_version.h",
               "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n");
    auto snap = r.check();
    EXPECT_FIRES(snap, "cudnn-missing-in-default-toolkit", "warning");
    EXPECT_SILENT(MutableRoot("server-three-toolkits").check(), "cudnn-missing-in-default-toolkit");
}

TEST(Rules, CpuOnlyFrameworkOnAGpuMachine) {
    auto r = MutableRoot(kHealthy);
    r.write(kTorchVersionPy, torch_version_py("2.4.0+cpu", ""));
    auto snap = r.check();
    EXPECT_FIRES(snap, "framework-cpu-only-build", "error");
    const auto fix = (*finding(snap, "framework-cpu-only-build"))["fix"].get<std::string>();
    EXPECT_NE(fix.find("--index-url https://download.pytorch.org/whl/cu124"), std::string::npos) << fix;  // the newest the 550 driver runs
    EXPECT_SILENT(MutableRoot("cpu-only-conda").check(), "framework-cpu-only-build");
}

TEST(Rules, FrameworkWithoutKernelsForTheGpu) {
    auto r = MutableRoot(kHealthy);
    r.write("/sys/bus/pci/devices/0000:01:00.0/device", "0x2b85\n")  // RTX 5090, sm_120
        .write(kTorchVersionPy, torch_version_py("2.8.0+cu126", "12.6"));
    auto snap = r.check();
    EXPECT_FIRES(snap, "framework-gpu-arch-unsupported", "error");
    EXPECT_NE((*finding(snap, "framework-gpu-arch-unsupported"))["why"].get<std::string>().find("sm_120"), std::string::npos);
    // The 4060 Ti (8.9) runs the same wheel's sm_86 code: silent.
    auto ada = MutableRoot(kHealthy);
    ada.write(kTorchVersionPy, torch_version_py("2.8.0+cu126", "12.6"));
    EXPECT_SILENT(ada.check(), "framework-gpu-arch-unsupported");
}

TEST(Rules, TensorflowOnOtherSystemCuda) {
    auto r = MutableRoot(kHealthy);
    const std::string site = "/home/alice/.local/lib/python3.10/site-packages";
    r.write(site + "/tensorflow/python/platform/build_info.py",
            "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '11.2'), ('cudnn_version', '8'), "
            "('is_cuda_build', True)])\n")
        .write(site + "/tensorflow-2.11.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.11.0\n");
    auto snap = r.check();
    EXPECT_FIRES(snap, "tensorflow-cuda-mismatch", "error");
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "tensorflow-cuda-mismatch");
}

TEST(Rules, ExtensionBuildWithAnotherNvcc) {
    auto r = MutableRoot(kHealthy);
    r.write(kTorchVersionPy, torch_version_py("2.4.0+cu118", "11.8"));
    auto snap = r.check();
    EXPECT_FIRES(snap, "extension-build-cuda-mismatch", "warning");
    EXPECT_SILENT(MutableRoot(kHealthy).check(), "extension-build-cuda-mismatch");
}

TEST(Rules, CondaRuntimeWithAnotherOnTheLoaderPath) {
    auto r = MutableRoot("cpu-only-conda");
    r.write("/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127", "").env("LD_LIBRARY_PATH", "/usr/local/cuda-12.4/lib64");
    auto snap = r.check();
    EXPECT_FIRES(snap, "conda-cuda-runtime-conflict", "warning");
    EXPECT_SILENT(MutableRoot("cpu-only-conda").check(), "conda-cuda-runtime-conflict");
}

TEST(Rules, TritonWithoutPythonHeaders) {
    auto r = MutableRoot(kHealthy);
    r.write("/home/alice/.local/lib/python3.10/site-packages/triton-3.0.0.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: triton\nVersion: 3.0.0\n");
    auto snap = r.check();
    EXPECT_FIRES(snap, "triton-compiler-missing", "warning");
    EXPECT_NE((*finding(snap, "triton-compiler-missing"))["fix"].get<std::string>().find("python3.10-dev"), std::string::npos);
    r.write("/usr/include/python3.10/Python.h", "/* headers */\n");
    EXPECT_SILENT(r.check(), "triton-compiler-missing");
}

}  // namespace cudoctor::test

namespace cudoctor::test {

TEST(Rules, FixesAreWrittenForTheDistribution) {
    auto debian = MutableRoot("nouveau");
    debian.write("/etc/os-release",
                 "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n");
    auto snap = debian.check();
    const auto fix = (*finding(snap, "gpu-without-driver"))["fix"].get<std::string>();
    EXPECT_NE(fix.find("nvidia-driver firmware-misc-nonfree"), std::string::npos) << fix;
    EXPECT_EQ(fix.find("nvidia-driver-580"), std::string::npos) << fix;  // Ubuntu's package names are not Debian's
    // A Blackwell GPU needs open modules newer than Debian 12's 535: NVIDIA's repository.
    debian.write("/sys/bus/pci/devices/0000:2b:00.0/device", "0x2b85\n");
    const auto blackwell = (*finding(debian.check(), "gpu-without-driver"))["fix"].get<std::string>();
    EXPECT_NE(blackwell.find("repos/debian12/x86_64/cuda-keyring"), std::string::npos) << blackwell;
    EXPECT_NE(blackwell.find("nvidia-open-580"), std::string::npos) << blackwell;
    auto ubuntu = MutableRoot("nouveau").check();
    EXPECT_NE((*finding(ubuntu, "gpu-without-driver"))["fix"].get<std::string>().find("nvidia-driver-580-open"), std::string::npos);
    // A datacenter GPU on Ubuntu gets the -server series.
    auto bare = without_module("server-three-toolkits");
    bare.remove_matching("/usr/lib/x86_64-linux-gnu", "libcuda.so").remove_matching("/usr/lib/x86_64-linux-gnu", "libnvidia-ml.so");
    auto server = bare.check();
    EXPECT_NE(server.dump().find("nvidia-driver-580-server-open"), std::string::npos) << all_findings(server);
}

TEST(Rules, ExitCodeFollowsTheWorstFinding) {
    EXPECT_EQ(run_cudoctor({"check", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/nouveau"}).exit_code, 1);
    const std::string server = std::string(CUDOCTOR_ROOTS_DIR) + "/server-three-toolkits";  // warnings only
    EXPECT_EQ(run_cudoctor({"check", "--root", server}).exit_code, 0);
    EXPECT_EQ(run_cudoctor({"check", "--root", server, "--fail-on", "warning"}).exit_code, 1);
    EXPECT_EQ(run_cudoctor({"check", "--root", server, "--fail-on", "nonsense"}).exit_code, 2);
}

TEST(Probes, NvccIsNotRunWhenAFileSaysTheVersion) {
    // "check reads files only": with a version file present, the toolkit's nvcc must not run.
    TempDir t;
    t.write("usr/local/cuda-12.4/version.json", R"({"cuda": {"version": "12.4.1"}, "cuda_nvcc": {"version": "12.4.131"}})");
    const auto marker = t.path() / "nvcc-was-run";
    t.write("usr/local/cuda-12.4/bin/nvcc", "#!/bin/sh\ntouch '" + marker.string() + "'\n", true);
    auto run = run_cudoctor({"check", "--root", t.str(), "--json"});
    ASSERT_EQ(run.exit_code, 1) << run.err;  // the image has no GPU: it can run nothing on one
    EXPECT_FALSE(std::filesystem::exists(marker));
    EXPECT_EQ(nlohmann::json::parse(run.out)["toolkits"][0]["version"], "12.4.131");
}

}  // namespace cudoctor::test
