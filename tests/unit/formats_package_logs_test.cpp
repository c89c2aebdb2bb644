#include <gtest/gtest.h>

#include "formats/package_logs.hpp"

using namespace cudoctor::formats;

TEST(FormatsPackageLogs, DpkgLogKeepsActionsOnly) {
    const char* log =
        "2024-06-12 06:41:09 startup archives unpack\n"
        "2024-06-12 06:41:25 remove libnvidia-compute-535:amd64 535.183.01-0ubuntu0~gpu22.04.1 <none>\n"
        "2024-06-12 06:41:25 status half-configured libnvidia-compute-535:amd64 535.183.01-0ubuntu0~gpu22.04.1\n"
        "2024-06-12 06:41:26 install libnvidia-compute-545:amd64 <none> 545.29.06-0ubuntu0~gpu22.04.1\n"
        "2024-06-12 06:41:27 upgrade nvidia-driver-535:amd64 535.183.01-0ubuntu1 545.29.06-0ubuntu1\n"
        "garbage line\n"
        "2024-06-12 06:41:28 upgrade short\n";
    auto actions = parse_dpkg_log(log);
    ASSERT_EQ(actions.size(), 3u);
    EXPECT_EQ(actions[0].action, "remove");
    EXPECT_EQ(actions[0].package, "libnvidia-compute-535");
    EXPECT_EQ(actions[0].old_version, "535.183.01-0ubuntu0~gpu22.04.1");
    EXPECT_EQ(actions[0].new_version, "");
    EXPECT_EQ(actions[1].when, "2024-06-12 06:41:26");
    EXPECT_EQ(actions[1].old_version, "");
    EXPECT_EQ(actions[2].action, "upgrade");
    EXPECT_EQ(actions[2].new_version, "545.29.06-0ubuntu1");
    EXPECT_TRUE(parse_dpkg_log("").empty());
}

TEST(FormatsPackageLogs, AptHistoryTransactions) {
    const char* log =
        "\nStart-Date: 2024-06-12  06:41:07\n"
        "Commandline: /usr/bin/unattended-upgrade\n"
        "Install: libnvidia-compute-545:amd64 (545.29.06-0ubuntu0~gpu22.04.1, automatic), nvidia-utils-545:amd64 (545.29.06-1)\n"
        "Upgrade: nvidia-driver-535:amd64 (535.183.01-0ubuntu0~gpu22.04.1, 545.29.06-0ubuntu0~gpu22.04.1)\n"
        "Remove: nvidia-dkms-535:amd64 (535.183.01-0ubuntu0~gpu22.04.1)\n"
        "End-Date: 2024-06-12  06:43:58\n\n"
        "Start-Date: 2024-06-13  10:00:00\n"
        "Commandline: apt install cuda-toolkit-12-4\n"
        "Requested-By: alice (1000)\n"
        "Install: cuda-toolkit-12-4:amd64 (12.4.1-1)\n"
        "End-Date: 2024-06-13  10:05:00\n";
    auto t = parse_apt_history(log);
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].start, "2024-06-12  06:41:07");
    EXPECT_EQ(t[0].commandline, "/usr/bin/unattended-upgrade");
    ASSERT_EQ(t[0].changes.size(), 4u);
    EXPECT_EQ(t[0].changes[0].action, "install");
    EXPECT_EQ(t[0].changes[0].package, "libnvidia-compute-545");
    EXPECT_EQ(t[0].changes[0].new_version, "545.29.06-0ubuntu0~gpu22.04.1");
    EXPECT_EQ(t[0].changes[2].action, "upgrade");
    EXPECT_EQ(t[0].changes[2].old_version, "535.183.01-0ubuntu0~gpu22.04.1");
    EXPECT_EQ(t[0].changes[2].new_version, "545.29.06-0ubuntu0~gpu22.04.1");
    EXPECT_EQ(t[0].changes[3].action, "remove");
    EXPECT_EQ(t[1].requested_by, "alice (1000)");
    EXPECT_TRUE(parse_apt_history("Commandline: x\nInstall: a (1)\n").empty());  // no Start-Date
}
