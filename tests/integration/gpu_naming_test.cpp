// A GPU the knowledge base's table does not list is still named: pci.ids gives its chip
// ("GA100 [A100X]"), the chip table its architecture and compute capability.
#include <filesystem>

#include <gtest/gtest.h>

#include "support/files.hpp"
#include "support/mutable_root.hpp"

namespace cudoctor::test {

TEST(GpuNaming, FromRealPciIdsWhenTheTableDoesNotKnowTheDevice) {
    const std::filesystem::path real = "/usr/share/misc/pci.ids";
    if (!std::filesystem::exists(real)) GTEST_SKIP() << "Debian package pci.ids is not installed";
    MutableRoot r("ubuntu2204-rtx4060ti");
    r.write("/sys/bus/pci/devices/0000:01:00.0/device", "0x20b8\n").write("/usr/share/misc/pci.ids", slurp(real));
    auto snap = r.check();
    ASSERT_EQ(snap["gpus"].size(), 1u);
    const auto& g = snap["gpus"][0];
    EXPECT_EQ(g["pci_device_id"], "10de:20b8");
    EXPECT_EQ(g["name_source"], "pci.ids");
    EXPECT_EQ(g["chip"], "GA100");
    EXPECT_EQ(g["architecture"], "Ampere");
    EXPECT_EQ(g["compute_capability"], "8.0");
    EXPECT_NE(g["name"].get<std::string>().find("A100X"), std::string::npos) << g.dump(2);
}

TEST(GpuNaming, UnknownDeviceIsStillAGpu) {
    MutableRoot r("ubuntu2204-rtx4060ti");
    r.write("/sys/bus/pci/devices/0000:01:00.0/device", "0x20b8\n").remove("/usr/share/misc/pci.ids").remove("/usr/share/hwdata");
    auto snap = r.check();
    ASSERT_EQ(snap["gpus"].size(), 1u);
    EXPECT_EQ(snap["gpus"][0]["name"], "");
    EXPECT_EQ(snap["gpus"][0]["name_source"], "");
    EXPECT_EQ(snap["gpus"][0]["bound_driver"], "nvidia");
}

}  // namespace cudoctor::test
