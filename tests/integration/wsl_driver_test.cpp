// Under WSL2 the Windows driver serves the GPU: check reads its version from the driver store
// WSL mounts (/usr/lib/wsl/drivers/<inf>_amd64_<hash>/<inf>) and its CUDA limit from Table 3's
// Windows column, on the wsl2-dxg fixture machine and copies of it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/mutable_root.hpp"

namespace wsl_driver_test {

using cudoctor::test::MutableRoot;
using cudoctor::test::run_cudoctor;
using nlohmann::json;
using ::testing::HasSubstr;

constexpr const char* kStore = "/usr/lib/wsl/drivers/nv_dispi.inf_amd64_31dab972145ae5a9";

std::string inf_with(const std::string& driver_ver) {
    return ";\r\n[Version]\r\nSignature   = \"$Windows NT$\"\r\nClass       = Display\r\nProvider    = %NVIDIA%\r\nDriverVer   = " +
           driver_ver + "\r\nCatalogFile = NV_DISP.CAT\r\n";
}

json check_json(const std::string& root) {
    const auto run = run_cudoctor({"check", "--root", root, "--json"});
    EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.err;
    return json::parse(run.out);
}

bool has_finding(const json& j, const std::string& id) {
    for (const auto& f : j["findings"])
        if (f["id"] == id) return true;
    return false;
}

}  // namespace wsl_driver_test

using namespace wsl_driver_test;

TEST(WslDriver, CheckShowsTheWindowsDriverAndItsCudaLimit) {
    const std::string root = std::string(CUDOCTOR_ROOTS_DIR) + "/wsl2-dxg";
    const auto j = check_json(root);
    EXPECT_EQ(j["driver"]["windows_version"], "551.86");
    EXPECT_EQ(j["driver"]["max_cuda"], "12.4");
    EXPECT_THAT(j["driver"]["max_cuda_source"].get<std::string>(), HasSubstr("Windows driver 551.86"));
    EXPECT_FALSE(has_finding(j, "driver-too-old-for-toolkit"));  // 551.86 ≥ 551.78, CUDA 12.4.1's Windows minimum

    const auto text = run_cudoctor({"check", "--root", root});
    EXPECT_THAT(text.out, HasSubstr("Windows driver 551.86 serves the GPU"));
    EXPECT_THAT(text.out, HasSubstr("runs CUDA ≤ 12.4"));
    EXPECT_THAT(text.out, HasSubstr("/dev/dxg"));
    EXPECT_THAT(text.out, ::testing::Not(HasSubstr("no NVIDIA GPU on the PCI bus")));
    const auto md = run_cudoctor({"check", "--root", root, "--markdown"});
    EXPECT_THAT(md.out, HasSubstr("Windows driver 551.86"));
}

TEST(WslDriver, AnOldWindowsDriverIsTooOldForTheToolkitByTheWindowsColumn) {
    // 31.0.15.1694 is 516.94 (CUDA 11.7's Windows driver): below CUDA 12's Windows floor 527.41.
    MutableRoot m("wsl2-dxg");
    m.write(std::string(kStore) + "/nv_dispi.inf", inf_with("06/21/2022,31.0.15.1694"));
    const auto j = check_json(m.path().string());
    EXPECT_EQ(j["driver"]["windows_version"], "516.94");
    EXPECT_EQ(j["driver"]["max_cuda"], "11.7");
    ASSERT_TRUE(has_finding(j, "driver-too-old-for-toolkit"));
    for (const auto& f : j["findings"]) {
        if (f["id"] != "driver-too-old-for-toolkit") continue;
        EXPECT_THAT(f["title"].get<std::string>(), HasSubstr("Windows driver 516.94"));
        EXPECT_THAT(f["fix"].get<std::string>(), HasSubstr("Windows"));
        EXPECT_THAT(f["fix"].get<std::string>(), ::testing::Not(HasSubstr("apt-get install")));
    }
}

TEST(WslDriver, AnUnreadableOrAmbiguousStoreClaimsNoVersion) {
    {
        MutableRoot m("wsl2-dxg");
        m.write(std::string(kStore) + "/nv_dispi.inf", std::string("\x7f"
                                                                   "ELF garbage\0\0\xff",
                                                                   16));
        const auto j = check_json(m.path().string());
        EXPECT_EQ(j["driver"]["windows_version"], "");
        EXPECT_EQ(j["driver"]["max_cuda"], "");
        EXPECT_FALSE(has_finding(j, "driver-too-old-for-toolkit"));
        bool noted = false;
        for (const auto& n : j["notes"]) noted = noted || n["path"].get<std::string>().ends_with("nv_dispi.inf");
        EXPECT_TRUE(noted);
    }
    {
        // An older driver package left in the store beside the current one: which one serves the
        // GPU is not in the files, so neither is claimed.
        MutableRoot m("wsl2-dxg");
        const std::string old = "/usr/lib/wsl/drivers/nv_dispi.inf_amd64_0123456789abcdef";
        m.write(old + "/nv_dispi.inf", inf_with("06/21/2022,31.0.15.1694"));
        m.write(old + "/libcuda.so.1.1", "not loaded, only seen");
        const auto j = check_json(m.path().string());
        EXPECT_EQ(j["driver"]["windows_version"], "");
        EXPECT_FALSE(has_finding(j, "driver-too-old-for-toolkit"));
    }
}

TEST(WslDriver, OutsideWslTheStoreIsNotRead) {
    // A Linux machine never has a Windows driver, even with such a folder in the image.
    MutableRoot m("ubuntu2204-rtx4060ti");
    m.write(std::string(kStore) + "/nv_dispi.inf", inf_with("03/14/2024,31.0.15.5186"));
    m.write(std::string(kStore) + "/libcuda.so.1.1", "x");
    const auto j = check_json(m.path().string());
    EXPECT_EQ(j["driver"]["windows_version"], "");
}
