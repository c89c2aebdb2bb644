// Pure parts of the toolkits room: folder naming, colon-list rewriting, rc-line stripping,
// update-alternatives records, driver package names.
#include <gtest/gtest.h>

#include "toolkits/alternatives.hpp"
#include "toolkits/dpkg_owner.hpp"
#include "toolkits/references.hpp"
#include "toolkits/shell.hpp"
#include "toolkits/uninstall_plan.hpp"

namespace cudoctor::toolkits {
namespace {

TEST(ToolkitsText, NamesFolderOnlyAsAWholePath) {
    EXPECT_TRUE(names_folder("export PATH=/usr/local/cuda-12.4/bin:$PATH", "/usr/local/cuda-12.4"));
    EXPECT_TRUE(names_folder("/usr/local/cuda-12.4", "/usr/local/cuda-12.4"));
    EXPECT_TRUE(names_folder("CUDA_HOME=\"/usr/local/cuda-12.4\"", "/usr/local/cuda-12.4/"));
    EXPECT_FALSE(names_folder("/usr/local/cuda-12.41/bin", "/usr/local/cuda-12.4"));
    EXPECT_FALSE(names_folder("/usr/local/cuda-12.4.1/bin", "/usr/local/cuda-12.4"));
    EXPECT_FALSE(names_folder("/opt/x/usr/local/cuda-12.4", "/usr/local/cuda-12.4"));
    EXPECT_FALSE(names_folder("", "/usr/local/cuda-12.4"));
}

TEST(ToolkitsText, RewriteListRemovesEveryToolkitEntryAndPrependsOnce) {
    const std::vector<std::string> dirs = {"/usr/local/cuda-11.8", "/usr/local/cuda", "/usr/local/cuda-12.4"};
    EXPECT_EQ(rewrite_list("/usr/local/cuda-11.8/bin:/usr/local/cuda/bin:/usr/bin", dirs, "/usr/local/cuda-12.4/bin"),
              "/usr/local/cuda-12.4/bin:/usr/bin");
    EXPECT_EQ(rewrite_list("/usr/local/cuda-12.4/bin:/usr/bin", dirs, "/usr/local/cuda-12.4/bin"), "/usr/local/cuda-12.4/bin:/usr/bin");
    EXPECT_EQ(rewrite_list("", dirs, "/usr/local/cuda-12.4/lib64"), "/usr/local/cuda-12.4/lib64");
    EXPECT_EQ(rewrite_list("/usr/local/cuda-11.8/lib64", dirs, ""), "");
    EXPECT_EQ(rewrite_list("/usr/local/cudax/bin:/a", dirs, ""), "/usr/local/cudax/bin:/a");  // not under a toolkit
}

TEST(ToolkitsText, StripFolderKeepsTheOtherToolkits) {
    EXPECT_EQ(strip_folder("export PATH=/usr/local/cuda-12.4/bin:/usr/local/cuda-11.8/bin:$PATH", "/usr/local/cuda-12.4"),
              "export PATH=/usr/local/cuda-11.8/bin:$PATH");
    EXPECT_EQ(strip_folder("alias a='ls /usr/local/cuda-11.8/bin/nvcc /usr/local/cuda-12.1/bin/nvcc'", "/usr/local/cuda-11.8"),
              "alias a='ls /usr/local/cuda-12.1/bin/nvcc'");
    EXPECT_EQ(strip_folder("X=/a:/usr/local/cuda-12.4/lib64", "/usr/local/cuda-12.4"), "X=/a");
}

TEST(ToolkitsText, AlternativesRoundTripAndBest) {
    const std::string text = "auto\n/usr/local/cuda\n\n/usr/local/cuda-12.1\n121\n/usr/local/cuda-12.4\n124\n\n";
    auto alt = parse_alternative("cuda", text);
    ASSERT_TRUE(alt) << alt.error().message;
    EXPECT_EQ(alt->choices.size(), 2u);
    EXPECT_EQ(alt->best()->path, "/usr/local/cuda-12.4");
    EXPECT_EQ(format_alternative(*alt), text);
    EXPECT_EQ(parse_alternative("cuda", "sideways\n/usr/local/cuda\n\n").error().message, "alternatives/cuda: status is not auto or manual");
    EXPECT_EQ(parse_alternative("cuda", "auto\n/usr/local/cuda\n\n/x\nhigh\n\n").error().message,
              "alternatives/cuda: priority of /x is not a number");
    EXPECT_EQ(parse_alternative("cuda", "auto\n").error().code, Errc::truncated);
}

TEST(ToolkitsText, DriverPackagesAndFiles) {
    for (const char* p : {"cuda-drivers", "cuda-drivers-550", "nvidia-driver-550", "libnvidia-compute-550", "nvidia-dkms-550",
                          "xserver-xorg-video-nvidia-550", "linux-modules-nvidia-550-generic", "libcuda1"})
        EXPECT_TRUE(is_driver_package(p)) << p;
    for (const char* p : {"cuda-nvcc-12-4", "libcublas-12-4", "cuda-toolkit-12-4", "cuda-runtime-12-4", "libcudnn9-cuda-12"})
        EXPECT_FALSE(is_driver_package(p)) << p;
    EXPECT_TRUE(is_driver_file("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"));
    EXPECT_TRUE(is_driver_file("/usr/local/cuda-12.4/compat/libcuda.so.1"));
    EXPECT_TRUE(is_driver_file("/lib/modules/6.5.0-27-generic/updates/dkms/nvidia.ko"));
    EXPECT_FALSE(is_driver_file("/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so"));
    EXPECT_FALSE(is_driver_file("/usr/local/cuda-12.4/bin/nvcc"));
}

TEST(ToolkitsText, ParseShell) {
    EXPECT_EQ(*parse_shell("/usr/bin/zsh"), Shell::zsh);
    EXPECT_EQ(*parse_shell("fish"), Shell::fish);
    EXPECT_EQ(*parse_shell("/bin/dash"), Shell::bash);
    EXPECT_EQ(parse_shell("csh").error().message, "unknown shell 'csh' (bash, zsh or fish)");
}

}  // namespace
}  // namespace cudoctor::toolkits
