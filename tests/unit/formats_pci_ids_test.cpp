#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "formats/pci_ids.hpp"
#include "support/files.hpp"

using namespace cudoctor::formats;

namespace {

using cudoctor::test::slurp;

const char* const kPciIdsSample =
    "#\n"
    "#\tList of PCI ID's\n"
    "#\n"
    "# Syntax:\n"
    "# vendor  vendor_name\n"
    "#\tdevice  device_name\t\t\t\t<-- single tab\n"
    "\n"
    "0001  SafeNet (wrong ID)\n"
    "10de  NVIDIA Corporation\n"
    "\t0020  NV4 [Riva TNT]\n"
    "\t\t1043 0200  V3400 TNT\n"
    "# a comment inside the block\n"
    "\t2330  GH100[H100 SXM5 80GB]\n"
    "\t2803  AD106 [GeForce RTX 4060 Ti]\n"
    "\t\t147d 10de  NVIDIA Geforce RTX 3090 Founders Edition\n"
    "\t2900  \n"
    "10df  Emulex Corporation\n"
    "\t2803  Not an NVIDIA device\n"
    "8086  Intel Corporation\n"
    "\t10de  82567LM-3 Gigabit Network Connection\n"
    "C 03  Display controller\n"
    "\t00  VGA compatible controller\n";

}  // namespace

TEST(FormatsPciIds, LooksUpDevicesTableDriven) {
    struct Case {
        std::uint16_t vendor, device;
        std::optional<std::string> name;
    };
    const std::vector<Case> cases = {
        {0x10de, 0x2803, "AD106 [GeForce RTX 4060 Ti]"},
        {0x10de, 0x2330, "GH100[H100 SXM5 80GB]"},
        {0x10de, 0x0020, "NV4 [Riva TNT]"},
        {0x10de, 0x1043, std::nullopt},  // only a subsystem id under 0020
        {0x10de, 0x147d, std::nullopt},  // subsystem vendor, not a device
        {0x10de, 0x2900, std::nullopt},  // empty name
        {0x10de, 0x10df, std::nullopt},  // the next vendor's id is not a device
        {0x10df, 0x2803, "Not an NVIDIA device"},
        {0x8086, 0x10de, "82567LM-3 Gigabit Network Connection"},
        {0x0001, 0x0000, std::nullopt},
        {0x1234, 0x2803, std::nullopt},  // unknown vendor
        {0x0300, 0x0000, std::nullopt},  // class section ("C 03") is not a vendor
    };
    for (const auto& c : cases)
        EXPECT_EQ(pci_ids_device_name(kPciIdsSample, c.vendor, c.device), c.name) << std::hex << c.vendor << ":" << c.device;
}

TEST(FormatsPciIds, VendorNames) {
    EXPECT_EQ(pci_ids_vendor_name(kPciIdsSample, 0x10de), "NVIDIA Corporation");
    EXPECT_EQ(pci_ids_vendor_name(kPciIdsSample, 0x0001), "SafeNet (wrong ID)");
    EXPECT_EQ(pci_ids_vendor_name(kPciIdsSample, 0xffff), std::nullopt);
}

TEST(FormatsPciIds, VendorOnTheFirstLineCrlfAndUpperCase) {
    EXPECT_EQ(pci_ids_device_name("10de  NVIDIA\n\t2803  AD106\n", 0x10de, 0x2803), "AD106");
    EXPECT_EQ(pci_ids_device_name("10DE  NVIDIA\r\n\t2B85  GB202\r\n", 0x10de, 0x2b85), "GB202");
    EXPECT_EQ(pci_ids_device_name("10de\tNVIDIA\n\t2803\tAD106  \n", 0x10de, 0x2803), "AD106");
}

TEST(FormatsPciIds, HostileText) {
    const std::vector<std::string> texts = {
        "",
        "10de",
        "10de ",
        "\n10de",
        "\n10de  N",
        "10de  NVIDIA\n\t",
        "10de  NVIDIA\n\t28",
        "10de  NVIDIA\n\t2803",
        "10de  NVIDIA\n\t2803  \xff\xfe\x80",
        std::string("\0\0\0\0\n10dg  x\n\t2803  y", 21),
        "10de  NVIDIA\n\t\t2803  sub only\n",
    };
    for (const auto& t : texts) {
        const auto r = pci_ids_device_name(t, 0x10de, 0x2803);
        if (r) {
            EXPECT_FALSE(r->empty());
        }
    }
    EXPECT_EQ(pci_ids_device_name(texts[8], 0x10de, 0x2803), "\xff\xfe\x80");
    EXPECT_EQ(pci_ids_device_name(texts[7], 0x10de, 0x2803), std::nullopt);
    EXPECT_EQ(pci_ids_device_name(texts[10], 0x10de, 0x2803), std::nullopt);
}

TEST(FormatsPciIds, RealDatabase) {
    std::string db;
    for (const char* path : {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"})
        if (std::filesystem::exists(path)) {
            db = slurp(path);
            break;
        }
    if (db.empty()) GTEST_SKIP() << "no pci.ids on this machine";
    EXPECT_EQ(pci_ids_vendor_name(db, 0x10de), "NVIDIA Corporation");
    EXPECT_EQ(pci_ids_device_name(db, 0x10de, 0x2803), "AD106 [GeForce RTX 4060 Ti]");
    EXPECT_EQ(pci_ids_device_name(db, 0x10de, 0x2330), "GH100[H100 SXM5 80GB]");
    EXPECT_EQ(pci_ids_device_name(db, 0x10de, 0xfffe), std::nullopt);
    EXPECT_EQ(pci_ids_device_name(db, 0xfffe, 0x0001), std::nullopt);
    // Fast: a miss scans the whole 1.3 MB file; 100 lookups stay far under a second.
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) (void)pci_ids_device_name(db, 0x10de, static_cast<std::uint16_t>(0xff00 + i));
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    EXPECT_LT(ms.count(), 1000);
}
