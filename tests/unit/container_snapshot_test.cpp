// The container facts of a Snapshot survive the JSON round trip (check --json, then --snapshot),
// and a snapshot written before they existed still loads, with them unset.
#include <gtest/gtest.h>

#include "snapshot/snapshot_json.hpp"

namespace cudoctor::test {
namespace container_snapshot_test {

snapshot::Snapshot with_container_facts() {
    snapshot::Snapshot s;
    s.platform.container = "docker";
    s.platform.nvidia_visible_devices = "all";
    s.platform.nvidia_driver_capabilities = "";  // set but empty: not the same as unset
    s.platform.nvidia_require_cuda = "cuda>=12.4 brand=tesla,driver>=470,driver<471";
    s.platform.container_toolkit_version = "1.16.2-1";
    s.platform.docker_installed = true;
    s.platform.docker_nvidia_runtime = true;
    s.platform.cdi_specs = {"/etc/cdi/nvidia.yaml"};
    return s;
}

TEST(ContainerSnapshot, ContainerFactsRoundTrip) {
    const auto s = with_container_facts();
    const auto back = snapshot::from_json_text(snapshot::to_json_value(s).dump());
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->platform, s.platform);
    EXPECT_EQ(back->platform.nvidia_driver_capabilities, std::optional<std::string>(""));
    EXPECT_FALSE(back->platform.nvidia_disable_require);
}

TEST(ContainerSnapshot, ASnapshotWithoutThemLoadsWithThemUnset) {
    auto j = snapshot::to_json_value(with_container_facts());
    for (const char* key : {"nvidia_visible_devices", "nvidia_driver_capabilities", "nvidia_require_cuda", "nvidia_disable_require",
                            "container_toolkit_version", "docker_installed", "docker_nvidia_runtime", "cdi_specs"})
        ASSERT_EQ(j["platform"].erase(key), 1u) << key;
    const auto back = snapshot::from_json_text(j.dump());
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->platform.container, "docker");
    EXPECT_FALSE(back->platform.nvidia_visible_devices);
    EXPECT_FALSE(back->platform.nvidia_driver_capabilities);
    EXPECT_FALSE(back->platform.nvidia_require_cuda);
    EXPECT_EQ(back->platform.container_toolkit_version, "");
    EXPECT_FALSE(back->platform.docker_installed);
    EXPECT_FALSE(back->platform.docker_nvidia_runtime);
    EXPECT_TRUE(back->platform.cdi_specs.empty());
}

}  // namespace container_snapshot_test
}  // namespace cudoctor::test
