// The container rules on Snapshot literals: inside a container, a start without the compute
// capability and an image requiring a CUDA the host driver cannot run; on a host, Docker with a GPU
// and no NVIDIA Container Toolkit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "formats/nvidia_require.hpp"
#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace rules_container_test {

using ::testing::HasSubstr;

// What nvidia/cuda:12.4.1-base-ubuntu22.04 sets (gitlab.com/nvidia/container-images/cuda, dist/12.4.1).
constexpr const char* kRequire124 =
    "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 brand=nvidia,driver>=470,driver<471 "
    "brand=geforce,driver>=470,driver<471 brand=tesla,driver>=525,driver<526 brand=unknown,driver>=525,driver<526 "
    "brand=geforce,driver>=525,driver<526 brand=tesla,driver>=535,driver<536 brand=unknown,driver>=535,driver<536 "
    "brand=geforce,driver>=535,driver<536";

/// Inside a Docker container on a host with driver `driver_version` (CUDA ≤ `max_cuda`), with the
/// driver libraries the runtime mounted (libcuda among them unless `libcuda` is false).
snapshot::Snapshot in_container(const std::string& driver_version, const std::string& max_cuda, bool libcuda = true) {
    auto s = gpu_machine(driver_version);
    s.platform.container = "docker";
    s.driver.max_cuda = max_cuda;
    if (!libcuda) s.driver.libraries = {{"libnvidia-ml.so", "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so." + driver_version, driver_version}};
    s.platform.nvidia_visible_devices = "all";
    s.platform.nvidia_driver_capabilities = "compute,utility";
    return s;
}

/// A host with an RTX 4090, driver 550.54.14 and Docker Engine from its apt repository.
snapshot::Snapshot docker_host() {
    auto s = gpu_machine();
    s.platform.docker_installed = true;
    s.platform.evidence.push_back({"/var/lib/dpkg/status", "docker-ce 5:26.1.3-1~ubuntu.22.04~jammy"});
    return s;
}

// --- container-no-compute-capability --------------------------------------------------------------

TEST(ContainerRules, UtilityOnlyWithoutLibcudaFires) {
    auto s = in_container("550.54.15", "12.4", /*libcuda=*/false);
    s.platform.nvidia_driver_capabilities = "utility";
    const auto found = fired("container-no-compute-capability", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_EQ(found[0].layer, snapshot::Layer::platform);
    EXPECT_EQ(found[0].title, "This docker container asks the NVIDIA runtime for \"utility\" only: no compute, so no libcuda");
    EXPECT_THAT(found[0].fix, HasSubstr("docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,utility IMAGE"));
    EXPECT_THAT(found[0].fix, HasSubstr("ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility"));
    EXPECT_TRUE(evidence_mentions(found[0], "NVIDIA_DRIVER_CAPABILITIES"));
}

TEST(ContainerRules, ComputeAllEmptyOrAMountedLibcudaIsSilent) {
    for (const char* caps : {"compute,utility", "utility, Compute", "all", "", "  "}) {
        auto s = in_container("550.54.15", "12.4", /*libcuda=*/false);
        s.platform.nvidia_driver_capabilities = caps;
        EXPECT_TRUE(silent("container-no-compute-capability", s)) << caps;
    }
    auto unset = in_container("550.54.15", "12.4", false);
    unset.platform.nvidia_driver_capabilities.reset();
    EXPECT_TRUE(silent("container-no-compute-capability", unset));
    // A libcuda there anyway (CDI, a bind mount): CUDA works.
    auto mounted = in_container("550.54.15", "12.4", /*libcuda=*/true);
    mounted.platform.nvidia_driver_capabilities = "utility";
    EXPECT_TRUE(silent("container-no-compute-capability", mounted));
    // No GPU asked for at all.
    auto none = in_container("550.54.15", "12.4", false);
    none.platform.nvidia_driver_capabilities = "utility";
    none.platform.nvidia_visible_devices = "void";
    EXPECT_TRUE(silent("container-no-compute-capability", none));
    // On a host the variable of a shell means nothing to a runtime.
    auto host = gpu_machine();
    host.driver.libraries.clear();
    host.platform.nvidia_driver_capabilities = "utility";
    EXPECT_TRUE(silent("container-no-compute-capability", host));
}

// --- container-driver-too-old ---------------------------------------------------------------------

TEST(ContainerRules, RequireCudaNoAlternativeMeetsFires) {
    // 545.29.06 runs CUDA 12.3 and is in none of the image's brand ranges (470, 525, 535).
    auto s = in_container("545.29.06", "12.3");
    s.platform.nvidia_require_cuda = kRequire124;
    const auto found = fired("container-driver-too-old", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].layer, snapshot::Layer::driver);
    // Within CUDA 12's minor-version compatibility: most programs still run.
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_EQ(found[0].title, "The host driver 545.29.06 runs CUDA ≤ 12.3, but this image requires cuda>=12.4");
    EXPECT_THAT(found[0].why, HasSubstr("unsatisfied condition: cuda>=12.4, please update your driver to a newer version"));
    EXPECT_THAT(found[0].fix, HasSubstr("On the host:\n#   install NVIDIA driver branch 550 or newer (CUDA 12.4 needs ≥ 550.54.14)"));
    EXPECT_THAT(found[0].fix, HasSubstr("an nvidia/cuda:12.3.2-… tag"));
}

TEST(ContainerRules, RequireCudaAcrossMajorsIsAnError) {
    auto s = in_container("520.61.05", "11.8");
    s.platform.nvidia_require_cuda = "cuda>=12.1";
    const auto found = fired("container-driver-too-old", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::error);
    EXPECT_THAT(found[0].why, HasSubstr("CUDA driver version is insufficient for CUDA runtime version"));
}

TEST(ContainerRules, RequireCudaMetOrMaybeMetIsSilent) {
    // 535.183.01 (CUDA 12.2) meets the brand=…,driver>=535,driver<536 alternatives: the runtime starts it.
    auto brand = in_container("535.183.01", "12.2");
    brand.platform.nvidia_require_cuda = kRequire124;
    EXPECT_TRUE(silent("container-driver-too-old", brand));
    auto newer = in_container("550.54.15", "12.4");
    newer.platform.nvidia_require_cuda = kRequire124;
    EXPECT_TRUE(silent("container-driver-too-old", newer));
    // No requirement, an unreadable one, no driver seen, or not in a container: nothing to judge.
    auto unset = in_container("545.29.06", "12.3");
    EXPECT_TRUE(silent("container-driver-too-old", unset));
    auto garbage = in_container("545.29.06", "12.3");
    garbage.platform.nvidia_require_cuda = "cuda>=twelve";
    EXPECT_TRUE(silent("container-driver-too-old", garbage));
    auto blind = in_container("545.29.06", "");
    blind.platform.nvidia_require_cuda = kRequire124;
    EXPECT_TRUE(silent("container-driver-too-old", blind));
    auto host = in_container("545.29.06", "12.3");
    host.platform.container.clear();
    host.platform.nvidia_require_cuda = kRequire124;
    EXPECT_TRUE(silent("container-driver-too-old", host));
}

TEST(ContainerRules, RequireExpressionParsesAlternativesAndConditions) {
    const auto e = formats::parse_nvidia_require("cuda>=12.4  brand=tesla,driver>=470,driver<471 ,, bad arch!=7.0");
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[0], (std::vector<formats::RequireCondition>{{"cuda", ">=", "12.4"}}));
    EXPECT_EQ(e[1], (std::vector<formats::RequireCondition>{{"brand", "=", "tesla"}, {"driver", ">=", "470"}, {"driver", "<", "471"}}));
    EXPECT_EQ(e[2], (std::vector<formats::RequireCondition>{{"bad", "", ""}}));
    EXPECT_EQ(e[3], (std::vector<formats::RequireCondition>{{"arch", "!=", "7.0"}}));
    EXPECT_TRUE(formats::parse_nvidia_require("   ").empty());
    EXPECT_EQ(formats::parse_nvidia_require("cuda=<>12")[0][0].op, "");  // no such operator
}

// --- container-toolkit-missing --------------------------------------------------------------------

TEST(ContainerRules, DockerWithGpuAndNoToolkitFires) {
    const auto found = fired("container-toolkit-missing", docker_host());
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].why, HasSubstr("could not select device driver"));
    EXPECT_THAT(found[0].fix, HasSubstr("curl -fsSL https://nvidia.github.io/libnvidia-container/gpgkey | sudo gpg --dearmor -o "
                                        "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg\n"));
    EXPECT_THAT(found[0].fix, HasSubstr("https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list | sed "));
    EXPECT_THAT(found[0].fix, HasSubstr("sudo apt-get update && sudo apt-get install -y nvidia-container-toolkit\n"
                                        "sudo nvidia-ctk runtime configure --runtime=docker\n"
                                        "sudo systemctl restart docker"));
    EXPECT_TRUE(evidence_mentions(found[0], "docker-ce"));
}

TEST(ContainerRules, ToolkitPresentNoDockerNoGpuOrInsideIsSilent) {
    auto with_toolkit = docker_host();
    with_toolkit.platform.container_toolkit_version = "1.16.2-1";
    EXPECT_TRUE(silent("container-toolkit-missing", with_toolkit));
    auto no_docker = docker_host();
    no_docker.platform.docker_installed = false;
    EXPECT_TRUE(silent("container-toolkit-missing", no_docker));
    auto no_gpu = docker_host();
    no_gpu.gpus.clear();
    EXPECT_TRUE(silent("container-toolkit-missing", no_gpu));
    auto cdi = docker_host();
    cdi.platform.cdi_specs = {"/etc/cdi/nvidia.yaml"};
    EXPECT_TRUE(silent("container-toolkit-missing", cdi));
    auto inside = docker_host();
    inside.platform.container = "docker";
    EXPECT_TRUE(silent("container-toolkit-missing", inside));
}

TEST(ContainerRules, WslGpuWithDockerEngineAndNoToolkitFires) {
    auto s = docker_host();
    s.gpus.clear();
    s.platform.wsl = true;
    s.platform.wsl_gpu = true;
    EXPECT_EQ(fired("container-toolkit-missing", s).size(), 1u);
}

}  // namespace rules_container_test
}  // namespace cudoctor::test::rule_cases
