#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/nvidia_proc.hpp"

using cudoctor::Errc;
using namespace cudoctor::formats;

TEST(FormatsNvidiaProc, ReadsDriverVersionLines) {
    struct Case {
        std::string text;
        std::string version;
        bool open;
        std::string compiler;
    };
    const std::vector<Case> cases = {
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
         "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
         "550.54.14", false, "gcc version 12.2.0 (Debian 12.2.0-14)"},
        {"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  Release Build  "
         "(dvs-builder@U16-A24-9-2)  Thu Oct 10 12:15:00 UTC 2024\n"
         "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n",
         "565.57.01", true, "gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)"},
        {"NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  35.3.1  Release Build  (buildbrain@mobile-u64-5)  "
         "Thu Mar 16 19:07:04 PDT 2023\n",
         "35.3.1", true, ""},
        {"NVRM version: NVIDIA UNIX ppc64le Kernel Module  390.157  Wed Oct 12 09:19:07 UTC 2022\r\n"
         "GCC version:  gcc version 9.4.0\r\n",
         "390.157", false, "gcc version 9.4.0"},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024", "550.54.14", false, ""},
        {"GCC version:  gcc 12\nNVRM version: something 1.2\n", "1.2", false, "gcc 12"},  // order does not matter
    };
    for (const auto& c : cases) {
        const auto r = parse_nvidia_proc_version(c.text);
        ASSERT_TRUE(r.has_value()) << c.text << ": " << r.error().message;
        EXPECT_EQ(r->version, c.version);
        EXPECT_EQ(r->open, c.open);
        EXPECT_EQ(r->compiler, c.compiler);
    }
}

TEST(FormatsNvidiaProc, DriverVersionErrorsAreExact) {
    struct Case {
        std::string text;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"", "no \"NVRM version:\" line in /proc/driver/nvidia/version"},
        {"GCC version:  gcc version 12.2.0\n", "no \"NVRM version:\" line in /proc/driver/nvidia/version"},
        {std::string("\xff\xfe\x00garbage", 10), "no \"NVRM version:\" line in /proc/driver/nvidia/version"},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  Thu Feb 22 01:44:30 UTC 2024\n",
         "no driver version in the NVRM line: NVIDIA UNIX x86_64 Kernel Module  Thu Feb 22 01:44:30 UTC 2024"},
        {"NVRM version: 550.\x01.14\n", "no driver version in the NVRM line: 550.?.14"},
        {"NVRM version:\n", "no driver version in the NVRM line: "},
    };
    for (const auto& c : cases) {
        const auto r = parse_nvidia_proc_version(c.text);
        ASSERT_FALSE(r.has_value()) << c.text;
        EXPECT_EQ(r.error().code, Errc::parse);
        EXPECT_EQ(r.error().message, c.message);
    }
}

TEST(FormatsNvidiaProc, ReadsProcModules) {
    const auto r = parse_proc_modules(
        "nvidia_uvm 1855488 0 - Live 0x0000000000000000 (POE)\n"
        "nvidia_drm 126976 4 - Live 0xffffffffc1a5c000 (POE)\n"
        "nvidia_modeset 1556480 8 nvidia_drm, Live 0x0000000000000000 (POE)\n"
        "nvidia 62959616 527 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)\n"
        "video 73728 2 nvidia_modeset,i915, Live 0x0000000000000000\n"
        "drm_kms_helper 274432 1 nvidia_drm Loading 0x0000000000000000\n"
        "old_kernel 1000 - - Unloading 0x0\n");
    ASSERT_TRUE(r.has_value()) << r.error().message;
    ASSERT_EQ(r->size(), 7u);
    const auto& uvm = (*r)[0];
    EXPECT_EQ(uvm.name, "nvidia_uvm");
    EXPECT_EQ(uvm.size, 1855488u);
    EXPECT_EQ(uvm.refcount, 0);
    EXPECT_TRUE(uvm.deps.empty());
    EXPECT_EQ(uvm.state, "Live");
    EXPECT_EQ(uvm.taints, "POE");
    EXPECT_EQ((*r)[3].name, "nvidia");
    EXPECT_EQ((*r)[3].refcount, 527);
    EXPECT_EQ((*r)[3].deps, (std::vector<std::string>{"nvidia_uvm", "nvidia_modeset"}));
    EXPECT_EQ((*r)[4].taints, "");
    EXPECT_EQ((*r)[5].deps, (std::vector<std::string>{"nvidia_drm"}));
    EXPECT_EQ((*r)[5].state, "Loading");
    EXPECT_EQ((*r)[6].refcount, -1);
    EXPECT_EQ((*r)[6].state, "Unloading");
}

TEST(FormatsNvidiaProc, SkipsMalformedModuleLines) {
    const auto r = parse_proc_modules(
        "nvidia_uvm 1855488 0 - Live 0x0000000000000000 (POE)\n"
        "\n"
        "garbled\n"
        "nvidia abc 0 - Live 0x0\n"                    // size not a number
        "nvidia 100 -3 - Live 0x0\n"                   // negative refcount
        "nvidia 100 99999999999 - Live 0x0\n"          // refcount overflow
        "nvidia 184467440737095516150 0 - Live 0x0\n"  // size overflow
        "nvidia 100 0 - 123 0x0\n"                     // state not a word
        "nvidia 100 0 - Live 0x0 (OE) extra\n"         // stray field
        "nv\xffidia 100 0 - Live 0x0\n"                // not a module name
        "nouveau 2000 0 a,b$, Live 0x0\n"              // bad dep
        "nouveau 2000 0 - Live\n");                    // address missing: still fine
    ASSERT_TRUE(r.has_value()) << r.error().message;
    ASSERT_EQ(r->size(), 2u);
    EXPECT_EQ((*r)[0].name, "nvidia_uvm");
    EXPECT_EQ((*r)[1].name, "nouveau");
    EXPECT_EQ((*r)[1].size, 2000u);
}

TEST(FormatsNvidiaProc, ModuleErrors) {
    const auto empty = parse_proc_modules("");
    ASSERT_TRUE(empty.has_value());
    EXPECT_TRUE(empty->empty());
    const auto blank = parse_proc_modules("\n  \n");
    ASSERT_TRUE(blank.has_value());
    EXPECT_TRUE(blank->empty());
    const auto bad = parse_proc_modules("garbled\x01 line\nanother\n");
    ASSERT_FALSE(bad.has_value());
    EXPECT_EQ(bad.error().code, Errc::parse);
    EXPECT_EQ(bad.error().message, "no line of /proc/modules could be read; the first is: garbled? line");
}
