#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/python_meta.hpp"
#include "support/files.hpp"

namespace cudoctor::formats {
namespace {

// ---- torch/version.py ------------------------------------------------------------------------

TEST(FormatsPythonMeta, TorchVersionPyGenerations) {
    struct Case {
        const char* label;
        const char* text;
        const char* version;
        std::optional<std::string> cuda;
        std::optional<std::string> hip;
        const char* git;
    };
    const Case cases[] = {
        // The cu121 wheel of torch 2.4.0 (a site-packages copy found by code search).
        {"2.4.0+cu121",
         "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
         "__version__ = '2.4.0+cu121'\ndebug = False\ncuda: Optional[str] = '12.1'\n"
         "git_version = 'e4ee3be4063b7c430974252fdf7db42273388d86'\nhip: Optional[str] = None\n",
         "2.4.0+cu121", "12.1", std::nullopt, "e4ee3be4063b7c430974252fdf7db42273388d86"},
        // A conda build: no local tag, xpu line (steleman/pytorch-cuda-2.7.1: torch/version.py).
        {"2.7.1-700",
         "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
         "__version__ = '2.7.1-700'\ndebug = False\ncuda: Optional[str] = '12.9'\ngit_version = 'Unknown'\n"
         "hip: Optional[str] = None\nxpu: Optional[str] = None\n",
         "2.7.1-700", "12.9", std::nullopt, "Unknown"},
        // A source build against CUDA 13 (kentstone84/PyTorch-2.10.0_sm120-: torch/version.py).
        {"2.10.0a0",
         "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']\n"
         "__version__ = '2.10.0a0+gite67e3d9'\ndebug = False\ncuda: Optional[str] = '13.0'\n"
         "git_version = 'e67e3d95f3ab863c8b44a6b16ce9f25d40b0d517'\nhip: Optional[str] = None\n"
         "xpu: Optional[str] = None\n",
         "2.10.0a0+gite67e3d9", "13.0", std::nullopt, "e67e3d95f3ab863c8b44a6b16ce9f25d40b0d517"},
        // A CPU wheel without annotations (alielzei/serverless-bert-huggingface-aws-lambda-docker).
        {"1.5.0+cpu",
         "__version__ = '1.5.0+cpu'\ndebug = False\ncuda = None\n"
         "git_version = '4ff3872a2099993bf7e8c588f7182f3df777205b'\nhip = None\n",
         "1.5.0+cpu", std::nullopt, std::nullopt, "4ff3872a2099993bf7e8c588f7182f3df777205b"},
        // torch 0.4.0 had three lines (tlee1987/ExploreModules36: torch/version.py).
        {"0.4.0", "__version__ = '0.4.0'\ndebug = False\ncuda = '9.1'\n", "0.4.0", "9.1", std::nullopt, ""},
        // A ROCm build, double quotes, CRLF.
        {"rocm", "__version__ = \"2.3.0+rocm5.7\"\r\ncuda = None\r\nhip = \"5.7.31921\"\r\n", "2.3.0+rocm5.7", std::nullopt, "5.7.31921", ""},
        // Indented or compared lines are not the assignment; the first top-level one is.
        {"tricky",
         "if False:\n    cuda = '1.0'\ncudax = '2.0'\ncuda == '3.0'\ncuda = '12.4'  # comment\ncuda = '9.9'\n"
         "__version__: str = '2.5.1'\n",
         "2.5.1", "12.4", std::nullopt, ""},
        // `cuda` bound to an expression is unknown.
        {"expression", "__version__ = '2.0.0'\ncuda = _get_cuda()\n", "2.0.0", std::nullopt, std::nullopt, ""},
    };
    for (const auto& c : cases) {
        const auto v = parse_torch_version_py(c.text);
        ASSERT_TRUE(v.has_value()) << c.label << ": " << v.error().message;
        EXPECT_EQ(v->version, c.version) << c.label;
        EXPECT_EQ(v->cuda, c.cuda) << c.label;
        EXPECT_EQ(v->hip, c.hip) << c.label;
        EXPECT_EQ(v->git_version, c.git) << c.label;
    }
}

TEST(FormatsPythonMeta, TorchVersionPyErrors) {
    for (const std::string& text :
         {std::string(""), std::string("cuda = '12.1'\n"), std::string("__version__ = None\n"), std::string("  __version__ = '1.0'\n"),
          std::string("__version__ = '2.4.0\n"), std::string("__version__ = \x00'1'", 17), std::string(5000, '\'')}) {
        const auto v = parse_torch_version_py(text);
        ASSERT_FALSE(v.has_value()) << text;
        EXPECT_EQ(v.error().code, Errc::parse);
        EXPECT_EQ(v.error().message, "no __version__ = '...' in torch/version.py");
    }
}

TEST(FormatsPythonMeta, RealDebianTorch) {
    const auto text = test::read_if_present("/usr/lib/python3/dist-packages/torch/version.py");
    if (!text) GTEST_SKIP() << "no Debian torch here";
    const auto v = parse_torch_version_py(*text);
    ASSERT_TRUE(v.has_value()) << v.error().message;
    EXPECT_EQ(v->version, "1.13.0a0");
    EXPECT_EQ(v->cuda, std::nullopt);
    EXPECT_EQ(v->hip, std::nullopt);
    EXPECT_EQ(v->git_version, "Unknown");
}

// ---- tensorflow build_info.py ----------------------------------------------------------------

// TF <= 2.2 on Linux, as tensorflow/tools/build_info/gen_build_info.py of that time writes it
// (uve/tensorflow), with the key_value pairs of a CUDA build.
constexpr const char* kTfGen1Linux = R"(
# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
# ==============================================================================
"""Generates a Python module containing information about the build."""
from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

is_rocm_build = False
is_cuda_build = True

cuda_version_number = '10.1'
cudnn_version_number = '7'
)";

// TF 2.0 on Windows: site-packages/tensorflow/python/platform/build_info.py as quoted in a
// user's script.
constexpr const char* kTfGen1Windows = R"(cuda_version_number = '10.0'
cudnn_version_number = '7'
msvcp_dll_name = 'msvcp140.dll'
nvcuda_dll_name = 'nvcuda.dll'
cudart_dll_name = 'cudart64_100.dll'
cudnn_dll_name = 'cudnn64_7.dll
)";

// TF 2.3-2.4 on Windows: the dict form with DLL suffixes (formats.md 6.6).
constexpr const char* kTfGen2Windows = R"(
"""Auto-generated module providing information about the build."""
from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

build_info = {'cuda_version': '64_101', 'cudnn_version': '64_7', 'cudart_dll_name': 'cudart64_101.dll', 'cudnn_dll_name': 'cudnn64_7.dll', 'is_cuda_build': True, 'is_rocm_build': False, 'msvcp_dll_names': 'msvcp140.dll,msvcp140_1.dll', 'nvcuda_dll_name': 'nvcuda.dll'}
)";

// TF >= 2.5: gen_build_info.py's template (tensorflow/tensorflow) around the pairs of a TF 2.13
// wheel as tf.sysconfig.get_build_info() printed them in TF's own Docker docs.
constexpr const char* kTfGen3 = R"(
# Copyright 2020 The TensorFlow Authors. All Rights Reserved.
# ==============================================================================
"""Auto-generated module providing information about the build."""
import collections

build_info = collections.OrderedDict([('cpu_compiler', '/opt/rh/devtoolset-9/root/usr/bin/gcc'), ('cuda_compute_capabilities', ['sm_52', 'sm_60', 'sm_61', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'compute_90']), ('cuda_version', '12.1'), ('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])
)";

TEST(FormatsPythonMeta, TfBuildInfoGenerations) {
    auto v = parse_tf_build_info(kTfGen1Linux);
    ASSERT_TRUE(v.has_value()) << v.error().message;
    EXPECT_EQ(v->cuda_version, "10.1");
    EXPECT_EQ(v->cudnn_version, "7");
    EXPECT_EQ(v->is_cuda_build, true);
    EXPECT_TRUE(v->cuda_compute_capabilities.empty());

    v = parse_tf_build_info(kTfGen1Windows);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cuda_version, "10.0");
    EXPECT_EQ(v->cudnn_version, "7");
    EXPECT_EQ(v->is_cuda_build, std::nullopt);

    v = parse_tf_build_info(kTfGen2Windows);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cuda_version, "10.1");
    EXPECT_EQ(v->cudnn_version, "7");
    EXPECT_EQ(v->is_cuda_build, true);

    v = parse_tf_build_info(kTfGen3);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cuda_version, "12.1");
    EXPECT_EQ(v->cudnn_version, "8");
    EXPECT_EQ(v->is_cuda_build, true);
    EXPECT_EQ(v->cuda_compute_capabilities,
              (std::vector<std::string>{"sm_52", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "compute_90"}));
}

TEST(FormatsPythonMeta, TfBuildInfoShapes) {
    // A CPU wheel (TF >= 2.5): no CUDA keys at all.
    auto v = parse_tf_build_info(
        "build_info = collections.OrderedDict([('cpu_compiler', '/usr/bin/gcc'), "
        "('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False)])\n");
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->is_cuda_build, false);
    EXPECT_EQ(v->cuda_version, "");
    EXPECT_EQ(v->cudnn_version, "");
    // TF 2.17+ print a dict inside OrderedDict(...), double quotes, newlines between pairs.
    v = parse_tf_build_info(
        "build_info = collections.OrderedDict({\n  \"cuda_version\": \"12.5.1\",\n"
        "  \"cudnn_version\": \"9\",\n  \"cuda_compute_capabilities\": [\n\"sm_60\",\n\"compute_90\",\n],\n"
        "  \"is_cuda_build\":True})");
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cuda_version, "12.5.1");
    EXPECT_EQ(v->cudnn_version, "9");
    EXPECT_EQ(v->is_cuda_build, true);
    EXPECT_EQ(v->cuda_compute_capabilities, (std::vector<std::string>{"sm_60", "compute_90"}));
    // DLL suffixes: cuda gets its dot back, cudnn stays a major.
    struct Suffix {
        const char* cuda;
        const char* want_cuda;
        const char* cudnn;
        const char* want_cudnn;
    };
    for (const auto& s : {Suffix{"64_110", "11.0", "64_8", "8"}, Suffix{"64_92", "9.2", "64_7", "7"}, Suffix{"64_1", "1", "64_", ""},
                          Suffix{"64_x1", "x1", "7.6.5", "7.6.5"}}) {
        const auto text = std::string("{'cuda_version': '") + s.cuda + "', 'cudnn_version': '" + s.cudnn + "'}";
        v = parse_tf_build_info(text);
        ASSERT_TRUE(v.has_value()) << text;
        EXPECT_EQ(v->cuda_version, s.want_cuda) << text;
        EXPECT_EQ(v->cudnn_version, s.want_cudnn) << text;
    }
    // A broken list is skipped, not half-read; a key that is a value is no key.
    v = parse_tf_build_info("('cuda_compute_capabilities', ['sm_52', 'sm_6\n('is_cuda_build', True)");
    ASSERT_TRUE(v.has_value());
    EXPECT_TRUE(v->cuda_compute_capabilities.empty());
    EXPECT_EQ(v->is_cuda_build, true);
    v = parse_tf_build_info("x = ['cuda_version']\nis_cuda_build = False\n");
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->cuda_version, "");
    EXPECT_EQ(v->is_cuda_build, false);
}

TEST(FormatsPythonMeta, TfBuildInfoErrors) {
    for (const std::string& text :
         {std::string(""), std::string("import collections\nbuild_info = {}\n"), std::string("('cuda_version', 12.1)"),
          std::string("'is_cuda_build': Truthy"), std::string("'is_cuda_build': True_1"), std::string("is_cuda_build = Falsey\n"),
          std::string("('cuda_compute_capabilities', ['sm_52'"), std::string(3000, '\''), std::string("\0\xff'cuda_version',", 17)}) {
        const auto v = parse_tf_build_info(text);
        ASSERT_FALSE(v.has_value()) << text;
        EXPECT_EQ(v.error().code, Errc::parse);
        EXPECT_EQ(v.error().message, "no cuda_version, cudnn_version, is_cuda_build or cuda_compute_capabilities in build_info.py");
    }
}

// ---- dist-info METADATA ----------------------------------------------------------------------

TEST(FormatsPythonMeta, DistMetadata) {
    // Head of torch 2.4.0's METADATA (shortened Requires-Dist list).
    const auto v = parse_dist_metadata(
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.4.0+cu121\n"
        "Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration\n"
        "Requires-Python: >=3.8.0\nRequires-Dist: filelock\n"
        "Requires-Dist: nvidia-cudnn-cu12 ==9.1.0.70 ; platform_system == \"Linux\" and platform_machine == "
        "\"x86_64\"\n"
        "Requires-Dist: triton ==3.0.0 ; platform_system == \"Linux\" and platform_machine == \"x86_64\" and "
        "python_version < \"3.13\"\n"
        "Provides-Extra: opt-einsum\n\n"
        "![PyTorch Logo](https://github.com/pytorch/pytorch/raw/main/docs/source/_static/img/pytorch-logo-dark.png)\n"
        "Name: not-a-header\nRequires-Dist: not-a-header\n");
    ASSERT_TRUE(v.has_value()) << v.error().message;
    EXPECT_EQ(v->name, "torch");
    EXPECT_EQ(v->version, "2.4.0+cu121");
    EXPECT_EQ(v->requires_dist,
              (std::vector<std::string>{"filelock",
                                        "nvidia-cudnn-cu12 ==9.1.0.70 ; platform_system == \"Linux\" and platform_machine == \"x86_64\"",
                                        "triton ==3.0.0 ; platform_system == \"Linux\" and platform_machine == \"x86_64\" and "
                                        "python_version < \"3.13\""}));
}

TEST(FormatsPythonMeta, DistMetadataShapes) {
    // Old-style parenthesised specifiers, CRLF, lower-case names, folded lines, first Name wins.
    auto v = parse_dist_metadata(
        "metadata-version: 2.0\r\nname: jax-cuda12-plugin\r\nVERSION: 0.4.30\r\n"
        "Description: a long\r\n        | folded: text\r\n"
        "Requires-Dist: nvidia-cudnn-cu12 (>=8.9.2.26,<9.0)\r\nName: second\r\n");
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->name, "jax-cuda12-plugin");
    EXPECT_EQ(v->version, "0.4.30");
    EXPECT_EQ(v->requires_dist, (std::vector<std::string>{"nvidia-cudnn-cu12 (>=8.9.2.26,<9.0)"}));
    // No Version is not an error; junk lines are skipped.
    v = parse_dist_metadata("garbage line\n:\nName:   spaced  \n");
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->name, "spaced");
    EXPECT_EQ(v->version, "");
}

TEST(FormatsPythonMeta, DistMetadataErrors) {
    for (const std::string& text : {std::string(""), std::string("\nName: torch\n"), std::string("Version: 1.0\n"), std::string("Name:\n"),
                                    std::string(" Name: folded\n"), std::string("Name\n"), std::string("\0\xffName: x", 9)}) {
        const auto v = parse_dist_metadata(text);
        ASSERT_FALSE(v.has_value()) << text;
        EXPECT_EQ(v.error().code, Errc::parse);
        EXPECT_EQ(v.error().message, "no Name: header in METADATA");
    }
}

TEST(FormatsPythonMeta, RealDistInfo) {
    const std::filesystem::path dir = "/usr/local/cuda-13.0/dist-info";
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) GTEST_SKIP() << "no " << dir;
    int seen = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const auto text = test::read_if_present(entry.path() / "METADATA");
        if (!text) continue;
        ++seen;
        const auto v = parse_dist_metadata(*text);
        ASSERT_TRUE(v.has_value()) << entry.path() << ": " << v.error().message;
        // The directory is named <name with _>-<version>.dist-info.
        const auto stem = entry.path().filename().string();
        auto want_name = v->name;
        for (auto& ch : want_name) ch = ch == '-' ? '_' : ch;
        EXPECT_EQ(stem, want_name + "-" + v->version + ".dist-info");
        if (v->name == "nvidia-cudnn-cu13") {
            EXPECT_EQ(v->version, "9.19.0.56");
            EXPECT_EQ(v->requires_dist, (std::vector<std::string>{"nvidia-cublas"}));
        }
        if (v->name == "nvidia-cuda-nvcc") {
            EXPECT_EQ(v->requires_dist, (std::vector<std::string>{"nvidia-nvvm", "nvidia-cuda-runtime", "nvidia-cuda-crt"}));
        }
    }
    EXPECT_GT(seen, 0);
}

// ---- find_python_string_assignment -----------------------------------------------------------

// jax/version.py of a released wheel: the build rewrites `_release_version: str | None = None`
// (jax-ml/jax and rdyro/jax: jax/version.py) to hold the version.
constexpr const char* kJaxVersionPy = R"(
import datetime
import os

_version = "0.4.30"

# The following line is overwritten by build scripts in distributions &
# releases. Do not modify this manually, or jax/jaxlib build will fail.
_release_version: str = '0.4.30'

def _write_version(fname: str) -> None:
  old_version_string = "_release_version: str = '0.4.30'"
  new_version_string = f"_release_version: str = {release_version!r}"

__version__ = _get_version_string()
_minimum_jaxlib_version = '0.4.30'
)";

TEST(FormatsPythonMeta, StringAssignment) {
    EXPECT_EQ(find_python_string_assignment(kJaxVersionPy, "_version"), "0.4.30");
    EXPECT_EQ(find_python_string_assignment(kJaxVersionPy, "_release_version"), "0.4.30");
    EXPECT_EQ(find_python_string_assignment(kJaxVersionPy, "_minimum_jaxlib_version"), "0.4.30");
    EXPECT_EQ(find_python_string_assignment(kJaxVersionPy, "__version__"), std::nullopt);
    EXPECT_EQ(find_python_string_assignment(kJaxVersionPy, "old_version_string"), std::nullopt);
    EXPECT_EQ(find_python_string_assignment("_release_version: str | None = None\n", "_release_version"), std::nullopt);

    struct Case {
        std::string text;
        std::optional<std::string> want;
    };
    const Case cases[] = {
        {"X = 'a'\n", "a"},
        {"X='a'", "a"},
        {"X = \"a b\"  # why\n", "a b"},
        {"X: str = 'a'\n", "a"},
        {"X = None\nX = 'second'\n", "second"},  // the first *string* assignment
        {"X = r'\\d'\n", "\\d"},
        {"X = u'x'\n", "x"},
        {"X = 'it\\'s'\n", "it's"},
        {"X = 'a\\nb'\n", "a\nb"},
        {"X = \"\"\"multi\nline\"\"\"\n", "multi\nline"},
        {"X = ''\n", ""},
        {"X = 'unterminated\nY = 'b'\n", std::nullopt},
        {"X = '''never closed\n", std::nullopt},
        {"X == 'a'\n", std::nullopt},
        {"X += 'a'\n", std::nullopt},
        {"XY = 'a'\n", std::nullopt},
        {" X = 'a'\n", std::nullopt},
        {"X: str\n", std::nullopt},
        {"X = f'{a}'\n", std::nullopt},
        {"", std::nullopt},
        {"X", std::nullopt},
        {"X =", std::nullopt},
        {"X = '\\", std::nullopt},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(find_python_string_assignment(c.text, "X"), c.want) << c.text;
    }
    EXPECT_EQ(find_python_string_assignment("= 'a'\n", ""), std::nullopt);
}

// ---- pyvenv.cfg ------------------------------------------------------------------------------

TEST(FormatsPythonMeta, PyvenvCfg) {
    // python3 -m venv (CPython 3.11).
    auto cfg = parse_pyvenv_cfg(
        "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n"
        "executable = /usr/bin/python3.11\ncommand = /usr/bin/python3 -m venv /tmp/v\n");
    EXPECT_EQ(cfg, (std::map<std::string, std::string>{{"home", "/usr/bin"},
                                                       {"include-system-site-packages", "false"},
                                                       {"version", "3.11.2"},
                                                       {"executable", "/usr/bin/python3.11"},
                                                       {"command", "/usr/bin/python3 -m venv /tmp/v"}}));
    // virtualenv writes version_info; keys are case-insensitive and the last one wins.
    cfg = parse_pyvenv_cfg(
        "home = /root/.pyenv/versions/3.11.7/bin\r\nimplementation = CPython\r\n"
        "version_info = 3.11.7.final.0\r\nvirtualenv = 20.25.0\r\n"
        "Include-System-Site-Packages = false\r\ninclude-system-site-packages=true\r\n"
        "no equals sign\r\n = empty key\r\nprompt = a = b\r\n");
    EXPECT_EQ(cfg.at("home"), "/root/.pyenv/versions/3.11.7/bin");
    EXPECT_EQ(cfg.at("version_info"), "3.11.7.final.0");
    EXPECT_EQ(cfg.at("include-system-site-packages"), "true");
    EXPECT_EQ(cfg.at(""), "empty key");
    EXPECT_EQ(cfg.at("prompt"), "a = b");
    EXPECT_EQ(cfg.size(), 7u);
    EXPECT_TRUE(parse_pyvenv_cfg("").empty());
    EXPECT_TRUE(parse_pyvenv_cfg(std::string("\0\xff\n", 3)).empty());
}

// Inputs that made an earlier draft scan the rest of the file from every line: each must be
// read in one pass (a quadratic reader takes minutes on these, and the test times out).
TEST(FormatsPythonMeta, HostileInputsStayLinear) {
    std::string unclosed;
    for (int i = 0; i < 100000; ++i) unclosed += "X = '''\n";
    EXPECT_EQ(find_python_string_assignment(unclosed, "X"), "\nX = ");  // line 2 closes line 1's string
    // After an unclosed one, nothing is code any more.
    EXPECT_EQ(find_python_string_assignment("X = '''\n" + std::string(200000, '\n') + "X = 'a'\n", "X"), std::nullopt);
    std::string keys;
    for (int i = 0; i < 100000; ++i) keys += "'cuda_version': '''";
    EXPECT_FALSE(parse_tf_build_info(keys).has_value());
    std::string lists = "('cuda_compute_capabilities', [";
    for (int i = 0; i < 100000; ++i) lists += "'sm_52', ";
    const auto v = parse_tf_build_info(lists);
    EXPECT_FALSE(v.has_value());
}

}  // namespace
}  // namespace cudoctor::formats
