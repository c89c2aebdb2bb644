// check on the container machines (tests/fixtures/README.md tells each one's story): inside a
// container, the image's NVIDIA_* variables against what the runtime mounted; on a host, Docker
// and the NVIDIA Container Toolkit. Where each rule fires, what it says, and that every other
// fixture machine stays silent.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/json_query.hpp"
#include "support/mutable_root.hpp"

namespace cudoctor::test {
namespace container_fixtures_test {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kOldHostDriver = "docker-cuda124-old-host-driver";
const std::string kNoCompute = "docker-no-compute-cap";
const std::string kNoToolkit = "ubuntu2204-docker-no-ctk";
const std::string kWithToolkit = "ubuntu2204-docker-ctk";

std::string root_of(const std::string& scenario) { return std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario; }

json check_json(const std::string& scenario) {
    auto run = run_cudoctor({"check", "--json", "--root", root_of(scenario)});
    EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << "\n" << run.err;
    return json::parse(run.out);
}

std::vector<std::string> ids_of(const json& snap) {
    std::vector<std::string> ids;
    for (const auto& f : snap["findings"]) ids.push_back(f["id"]);
    return ids;
}

TEST(ContainerFixtures, ImageRequiringNewerCudaThanTheHostDriverFires) {
    const auto snap = check_json(kOldHostDriver);
    EXPECT_EQ(snap["platform"]["container"], "docker");
    EXPECT_EQ(snap["platform"]["nvidia_driver_capabilities"], "compute,utility");
    EXPECT_EQ(snap["platform"]["nvidia_visible_devices"], "all");
    EXPECT_TRUE(snap["platform"]["nvidia_require_cuda"].get<std::string>().starts_with("cuda>=12.4 brand=tesla,driver>=470,driver<471 "));
    EXPECT_EQ(ids_of(snap), std::vector<std::string>{"container-driver-too-old"}) << snap["findings"].dump(2);
    const json* f = finding(snap, "container-driver-too-old");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ((*f)["layer"], "driver");
    EXPECT_EQ((*f)["severity"], "warning");  // 545 is within CUDA 12's minor-version compatibility
    EXPECT_EQ((*f)["title"], "The host driver 545.29.06 runs CUDA ≤ 12.3, but this image requires cuda>=12.4");
    const std::string fix = (*f)["fix"];
    EXPECT_NE(fix.find("install NVIDIA driver branch 550 or newer (CUDA 12.4 needs ≥ 550.54.14)"), std::string::npos) << fix;
}

TEST(ContainerFixtures, StartedWithoutComputeFires) {
    const auto snap = check_json(kNoCompute);
    EXPECT_EQ(ids_of(snap), std::vector<std::string>{"container-no-compute-capability"}) << snap["findings"].dump(2);
    const json* f = finding(snap, "container-no-compute-capability");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ((*f)["severity"], "error");
    const std::string fix = (*f)["fix"];
    EXPECT_NE(fix.find("docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,utility IMAGE"), std::string::npos) << fix;
}

TEST(ContainerFixtures, ComputeAddedToTheSameContainerIsSilent) {
    // What the fix does when the container is started again: compute asked for, libcuda mounted.
    MutableRoot copy(kNoCompute);
    copy.env("NVIDIA_DRIVER_CAPABILITIES", "compute,utility");
    EXPECT_EQ(finding(copy.check(), "container-no-compute-capability"), nullptr);
}

TEST(ContainerFixtures, DockerWithoutTheToolkitFiresWithNvidiasInstall) {
    const auto snap = check_json(kNoToolkit);
    EXPECT_TRUE(snap["platform"]["docker_installed"].get<bool>());
    EXPECT_EQ(snap["platform"]["container_toolkit_version"], "");
    EXPECT_EQ(ids_of(snap), std::vector<std::string>{"container-toolkit-missing"}) << snap["findings"].dump(2);
    const std::string fix = (*finding(snap, "container-toolkit-missing"))["fix"];
    EXPECT_NE(fix.find("sudo apt-get update && sudo apt-get install -y nvidia-container-toolkit\n"
                       "sudo nvidia-ctk runtime configure --runtime=docker\nsudo systemctl restart docker"),
              std::string::npos)
        << fix;
}

TEST(ContainerFixtures, HostWithTheToolkitIsHealthyAndShowsIt) {
    const auto snap = check_json(kWithToolkit);
    EXPECT_TRUE(snap["findings"].empty()) << snap["findings"].dump(2);
    EXPECT_EQ(snap["platform"]["container_toolkit_version"], "1.16.2-1");
    EXPECT_TRUE(snap["platform"]["docker_nvidia_runtime"].get<bool>());
    EXPECT_EQ(snap["platform"]["cdi_specs"], json::array({"/etc/cdi/nvidia.yaml"}));
    auto text = run_cudoctor({"check", "--root", root_of(kWithToolkit)});
    EXPECT_NE(text.out.find("NVIDIA Container Toolkit 1.16.2-1 (Docker runtime: nvidia)"), std::string::npos) << text.out;
}

TEST(ContainerFixtures, GarbageDaemonJsonIsANoteNotACrash) {
    MutableRoot copy(kWithToolkit);
    copy.write("/etc/docker/daemon.json", "{\"runtimes\": {\"nvidia\": ");
    const auto snap = copy.check();
    EXPECT_FALSE(snap["platform"]["docker_nvidia_runtime"].get<bool>());
    EXPECT_NE(find_by(snap["notes"], "path", "/etc/docker/daemon.json"), nullptr) << snap["notes"].dump(2);
    EXPECT_TRUE(snap["findings"].empty()) << snap["findings"].dump(2);
}

TEST(ContainerFixtures, EveryOtherMachineIsSilent) {
    const std::map<std::string, std::string> home = {{"container-driver-too-old", kOldHostDriver},
                                                     {"container-no-compute-capability", kNoCompute},
                                                     {"container-toolkit-missing", kNoToolkit}};
    for (const auto& e : fs::directory_iterator(CUDOCTOR_ROOTS_DIR)) {
        if (!e.is_directory()) continue;
        auto run = run_cudoctor({"check", "--json", "--root", e.path().string()});
        if (run.exit_code != 0 && run.exit_code != 1) continue;  // not a machine check reads (its own tests say why)
        const auto snap = json::parse(run.out);
        for (const auto& [id, where] : home)
            if (e.path().filename() != where) {
                EXPECT_EQ(finding(snap, id), nullptr) << id << " on " << e.path().filename();
            }
    }
}

TEST(ContainerFixtures, ExplainConfirmsDockersNoGpuDriverByTheMissingToolkit) {
    // Docker's own words when no NVIDIA runtime is registered, read with the machine: the rule that
    // fired there confirms the cause; on the healthy host with the toolkit nothing confirms it.
    TempDir t;
    const auto log =
        t.write("docker.log", "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n");
    const auto with = [&](const std::string& machine) {
        auto run = run_cudoctor({"explain", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/" + machine, "--log", log.string(), "--json"});
        return nlohmann::json::parse(run.out)["causes"][0];
    };
    const auto missing = with("ubuntu2204-docker-no-ctk");
    EXPECT_EQ(missing["id"], "container-gpu-unavailable");
    EXPECT_EQ(missing["confidence"], "high");
    EXPECT_NE(missing.dump().find("container-toolkit-missing"), std::string::npos) << missing.dump(2);
    const auto healthy = with("ubuntu2204-docker-ctk");
    EXPECT_EQ(healthy["id"], "container-gpu-unavailable");
    EXPECT_EQ(healthy.dump().find("container-toolkit-missing fired"), std::string::npos) << healthy.dump(2);
}

}  // namespace container_fixtures_test
}  // namespace cudoctor::test
