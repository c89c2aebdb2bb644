#include <gtest/gtest.h>

#include <string>

#include "formats/conda_meta.hpp"

namespace cudoctor::formats {
namespace {

// conda-meta/cuda-version-12.4-h3060b56_3.json of a conda-forge environment, its "files" and
// "paths_data" shortened.
constexpr const char* kCudaVersion = R"({
  "build": "h3060b56_3",
  "build_number": 3,
  "channel": "https://conda.anaconda.org/conda-forge/noarch",
  "constrains": [
    "cudatoolkit 12.4|12.4.*",
    "__cuda >=12"
  ],
  "depends": [],
  "extracted_package_dir": "/opt/conda/pkgs/cuda-version-12.4-h3060b56_3",
  "files": [],
  "fn": "cuda-version-12.4-h3060b56_3.conda",
  "license": "LicenseRef-NVIDIA-End-User-License-Agreement",
  "link": {
    "source": "/opt/conda/pkgs/cuda-version-12.4-h3060b56_3",
    "type": 1
  },
  "md5": "c9a3fe8b957176e1a8452c6f3431b0d8",
  "name": "cuda-version",
  "noarch": "generic",
  "package_tarball_full_path": "/opt/conda/pkgs/cuda-version-12.4-h3060b56_3.conda",
  "paths_data": {
    "paths": [],
    "paths_version": 1
  },
  "requested_spec": "conda-forge::cuda-version=12.4",
  "sha256": "a8e7b2d9d1c5e1e3e1ed4ba0f2c3c7a1f9d62e3c6a2ea42e5f7a4bb2d3d5e8a1",
  "size": 21066,
  "subdir": "noarch",
  "timestamp": 1709765379,
  "url": "https://conda.anaconda.org/conda-forge/noarch/cuda-version-12.4-h3060b56_3.conda",
  "version": "12.4"
})";

// conda-meta/cudatoolkit-11.3.1-h2bc3f7f_2.json (anaconda defaults), shortened.
constexpr const char* kCudatoolkit = R"({"build": "h2bc3f7f_2", "build_number": 2,
 "channel": "https://repo.anaconda.com/pkgs/main/linux-64", "depends": ["__glibc >=2.17,<3.0.a0",
 "libgcc-ng >=9.3.0", "libstdcxx-ng >=9.3.0"], "files": ["lib/libcudart.so.11.0", "lib/libcudart.so.11.3.109",
 "lib/libcublas.so.11"], "name": "cudatoolkit", "version": "11.3.1"})";

TEST(FormatsCondaMeta, RealRecords) {
    auto p = parse_conda_meta(kCudaVersion);
    ASSERT_TRUE(p.has_value()) << p.error().message;
    EXPECT_EQ(p->name, "cuda-version");
    EXPECT_EQ(p->version, "12.4");
    EXPECT_EQ(p->build, "h3060b56_3");
    EXPECT_EQ(p->channel, "https://conda.anaconda.org/conda-forge/noarch");
    EXPECT_TRUE(p->depends.empty());

    p = parse_conda_meta(kCudatoolkit);
    ASSERT_TRUE(p.has_value()) << p.error().message;
    EXPECT_EQ(p->name, "cudatoolkit");
    EXPECT_EQ(p->version, "11.3.1");
    EXPECT_EQ(p->channel, "https://repo.anaconda.com/pkgs/main/linux-64");
    EXPECT_EQ(p->depends, (std::vector<std::string>{"__glibc >=2.17,<3.0.a0", "libgcc-ng >=9.3.0", "libstdcxx-ng >=9.3.0"}));
}

TEST(FormatsCondaMeta, WrongTypesAndHugeFiles) {
    auto p = parse_conda_meta(R"({"name": "x", "version": 12.4, "build": null, "channel": ["a"],
                                 "depends": ["a >=1", 5, null, {"b": 1}, "c"]})");
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->version, "");
    EXPECT_EQ(p->build, "");
    EXPECT_EQ(p->channel, "");
    EXPECT_EQ(p->depends, (std::vector<std::string>{"a >=1", "c"}));
    EXPECT_TRUE(parse_conda_meta(R"({"name": "x", "depends": "a"})")->depends.empty());

    // 200 000 paths in "files" (a CUDA toolkit package has tens of thousands) and a deeply
    // nested "paths_data" are skipped while parsing.
    std::string big = R"({"name": "cuda-nvcc", "files": [)";
    for (int i = 0; i < 200000; ++i) big += (i ? ",\"" : "\"") + std::string("lib/libx.so.") + std::to_string(i) + "\"";
    big += R"(], "paths_data": )" + std::string(50000, '[') + std::string(50000, ']') + R"(, "version": "12.4.131"})";
    p = parse_conda_meta(big);
    ASSERT_TRUE(p.has_value()) << p.error().message;
    EXPECT_EQ(p->name, "cuda-nvcc");
    EXPECT_EQ(p->version, "12.4.131");
}

TEST(FormatsCondaMeta, Errors) {
    struct Case {
        std::string text;
        const char* message;
    };
    const Case cases[] = {
        {"",
         "not valid JSON: parse error at line 1, column 1: syntax error while parsing value - unexpected end of "
         "input; expected '[', '{', or a literal"},
        {"[]", "not a JSON object, but array"},
        {"{}", "no \"name\" string in conda-meta record"},
        {R"({"name": 5})", "no \"name\" string in conda-meta record"},
        {R"({"name": ""})", "no \"name\" string in conda-meta record"},
        {R"({"nested": {"name": "x"}})", "no \"name\" string in conda-meta record"},
        // Broken inside a skipped member is still broken.
        {R"({"name": "x", "files": [1, 2)",
         "not valid JSON: parse error at line 1, column 29: syntax error while parsing array - unexpected end of "
         "input; expected ']'"},
    };
    for (const auto& c : cases) {
        const auto p = parse_conda_meta(c.text);
        ASSERT_FALSE(p.has_value()) << c.text;
        EXPECT_EQ(p.error().code, Errc::parse) << c.text;
        EXPECT_EQ(p.error().message, c.message) << c.text;
    }
}

}  // namespace
}  // namespace cudoctor::formats
