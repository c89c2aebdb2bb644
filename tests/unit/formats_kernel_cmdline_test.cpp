#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/kernel_cmdline.hpp"

using namespace cudoctor::formats;
using Tokens = std::vector<std::string>;

TEST(FormatsKernelCmdline, SplitsRespectingQuotes) {
    const std::vector<std::pair<std::string, Tokens>> cases = {
        {"", {}},
        {"\n", {}},
        {"BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64 root=UUID=abcd ro quiet\n",
         {"BOOT_IMAGE=/vmlinuz-6.1.0-18-amd64", "root=UUID=abcd", "ro", "quiet"}},
        {"a  \t b", {"a", "b"}},
        {"dyndbg=\"file drivers/x.c +p\" quiet", {"dyndbg=file drivers/x.c +p", "quiet"}},
        {"\"quoted whole\" x", {"quoted whole", "x"}},
        {"open=\"runs to the end", {"open=runs to the end"}},
        {"\"\"", {""}},
        {"a=\xff\xfe b", {"a=\xff\xfe", "b"}},
    };
    for (const auto& [text, tokens] : cases) EXPECT_EQ(parse_kernel_cmdline(text), tokens) << text;
}

TEST(FormatsKernelCmdline, BlacklistForms) {
    struct Case {
        std::string cmdline;
        std::string module;
        bool blacklisted;
    };
    const std::vector<Case> cases = {
        {"quiet modprobe.blacklist=nouveau", "nouveau", true},
        {"modprobe.blacklist=a,nouveau,b", "nouveau", true},
        {"modprobe.blacklist=nouveaux", "nouveau", false},
        {"rd.driver.blacklist=nouveau", "nouveau", true},
        {"rdblacklist=nouveau", "nouveau", true},
        {"blacklist=nouveau", "nouveau", true},
        {"module_blacklist=nvidia_drm", "nvidia-drm", true},
        {"modprobe.blacklist=nvidia-drm", "nvidia_drm", true},
        {"nouveau.modeset=0", "nouveau", true},
        {"nouveau.modeset=1", "nouveau", false},
        {"nvidia-drm.modeset=1", "nvidia_drm", false},
        {"nouveau", "nouveau", false},
        {"foo.blacklist=nouveau", "nouveau", false},
        {"modprobe.blacklist=", "nouveau", false},
        {"modprobe.blacklist=,,", "", true},  // an empty name in the list matches an empty module
        {"", "nouveau", false},
        {"quiet splash", "nouveau", false},
        {"\"modprobe.blacklist=nouveau\"", "nouveau", true},
        {"quiet -- modprobe.blacklist=nouveau", "nouveau", false},  // after "--": init's arguments
    };
    for (const auto& c : cases)
        EXPECT_EQ(cmdline_blacklists(parse_kernel_cmdline(c.cmdline), c.module), c.blacklisted) << c.cmdline << " / " << c.module;
}
