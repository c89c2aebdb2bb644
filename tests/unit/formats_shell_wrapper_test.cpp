#include <gtest/gtest.h>

#include "formats/shell_wrapper.hpp"

using cudoctor::formats::wrapper_exec_target;

TEST(FormatsShellWrapper, FindsTheExecTarget) {
    struct Case {
        const char* script;
        std::optional<std::string> target;
    };
    const Case cases[] = {
        // The wrappers this machine's toolkit installed in /usr/local/bin.
        {"#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc \"$@\"\n", "/usr/local/cuda-13.0/bin/nvcc"},
        {"#!/bin/bash\n# comment\n  exec \"/opt/cuda 12/bin/nvcc\" \"$@\"\n", "/opt/cuda 12/bin/nvcc"},
        {"#!/bin/sh\nexec '/usr/lib/nvidia-cuda-toolkit/bin/nvcc' \"$@\"", "/usr/lib/nvidia-cuda-toolkit/bin/nvcc"},
        {"#!/bin/sh\nexec $CUDA_HOME/bin/nvcc \"$@\"\n", std::nullopt},
        {"#!/bin/sh\nexec nvcc \"$@\"\n", std::nullopt},
        {"#!/bin/sh\nexecutable=/x\n", std::nullopt},
        {"\x7f"
         "ELF\x02\x01\x01",
         std::nullopt},
        {"", std::nullopt},
        {"#!/bin/sh\nexec \"/unterminated\n", std::nullopt},
    };
    for (const auto& c : cases) EXPECT_EQ(wrapper_exec_target(c.script), c.target) << c.script;
}
