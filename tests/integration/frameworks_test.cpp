// Frameworks found from their files, never imported: JAX and its CUDA plugin, CuPy, ONNX
// Runtime, Triton and TensorFlow, laid into the healthy fixture's user site as pip lays them.
#include <gtest/gtest.h>

#include "support/mutable_root.hpp"

namespace cudoctor::test {
namespace {

const std::string kSite = "/home/alice/.local/lib/python3.10/site-packages";

const nlohmann::json* framework(const nlohmann::json& snap, const std::string& name) {
    for (const auto& f : snap["frameworks"])
        if (f["name"] == name) return &f;
    return nullptr;
}

std::string metadata(const std::string& name, const std::string& version, const std::string& requires_dist = {}) {
    return "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n" + requires_dist + "\nThe description.\n";
}

}  // namespace

TEST(Frameworks, EveryKindIsReadFromItsFiles) {
    MutableRoot r("ubuntu2204-rtx4060ti");
    // jax 0.4.30 with the CUDA 12 plugin (its version.py from a released wheel).
    r.write(kSite + "/jax/version.py", "_version: str = \"0.4.30\"\n_release_version: str = '0.4.30'\n")
        .write(kSite + "/jax-0.4.30.dist-info/METADATA", metadata("jax", "0.4.30"))
        .write(kSite + "/jax_cuda12_plugin-0.4.30.dist-info/METADATA",
               metadata("jax-cuda12-plugin", "0.4.30", "Requires-Dist: nvidia-cudnn-cu12 (<10.0,>=9.1) ; extra == \"with_cuda\"\n"))
        .write(kSite + "/cupy_cuda12x-13.3.0.dist-info/METADATA", metadata("cupy-cuda12x", "13.3.0"))
        .write(kSite + "/onnxruntime_gpu-1.19.2.dist-info/METADATA", metadata("onnxruntime-gpu", "1.19.2"))
        .write(kSite + "/onnxruntime/capi/libonnxruntime_providers_cuda.so", "")
        .write(kSite + "/triton-3.0.0.dist-info/METADATA", metadata("triton", "3.0.0"))
        .write(kSite + "/tensorflow/python/platform/build_info.py",
               "import collections\nbuild_info = collections.OrderedDict([('cuda_compute_capabilities', ['sm_60', 'sm_70', "
               "'sm_80', 'sm_89', 'compute_90']), ('cuda_version', '12.3'), ('cudnn_version', '8'), ('is_cuda_build', True)])\n")
        .write(kSite + "/tensorflow-2.16.1.dist-info/METADATA",
               metadata("tensorflow", "2.16.1", "Requires-Dist: nvidia-cudnn-cu12 (==8.9.7.29) ; extra == \"and-cuda\"\n"));
    auto snap = r.check();

    const auto* jax = framework(snap, "jax");
    ASSERT_NE(jax, nullptr) << snap["frameworks"].dump(2);
    EXPECT_EQ((*jax)["version"], "0.4.30");
    EXPECT_EQ((*jax)["cuda"], "12");
    const auto* cupy = framework(snap, "cupy");
    ASSERT_NE(cupy, nullptr);
    EXPECT_EQ((*cupy)["version"], "13.3.0");
    EXPECT_EQ((*cupy)["cuda"], "12");
    const auto* ort = framework(snap, "onnxruntime");
    ASSERT_NE(ort, nullptr);
    EXPECT_EQ((*ort)["version"], "1.19.2");
    EXPECT_TRUE((*ort)["cuda"].is_string());  // a CUDA build: it ships the CUDA execution provider
    const auto* triton = framework(snap, "triton");
    ASSERT_NE(triton, nullptr);
    EXPECT_EQ((*triton)["version"], "3.0.0");
    const auto* tf = framework(snap, "tensorflow");
    ASSERT_NE(tf, nullptr);
    EXPECT_EQ((*tf)["version"], "2.16.1");
    EXPECT_EQ((*tf)["cuda"], "12.3");
    EXPECT_EQ((*tf)["cudnn"], "8");
    EXPECT_EQ((*tf)["cuda_archs"], nlohmann::json::array({"sm_60", "sm_70", "sm_80", "sm_89", "compute_90"}));
    const auto* torch = framework(snap, "torch");
    ASSERT_NE(torch, nullptr);
    EXPECT_EQ((*torch)["python"], kSite);
    EXPECT_EQ((*torch)["interpreter"], "/usr/bin/python3");
}

TEST(Frameworks, CpuOnlyOnnxRuntimeAndTensorflow) {
    MutableRoot r("ubuntu2204-rtx4060ti");
    r.write(kSite + "/onnxruntime-1.19.2.dist-info/METADATA", metadata("onnxruntime", "1.19.2"))
        .write(kSite + "/tensorflow/python/platform/build_info.py",
               "import collections\nbuild_info = collections.OrderedDict([('is_cuda_build', False), ('is_rocm_build', False)])\n")
        .write(kSite + "/tensorflow_cpu-2.16.1.dist-info/METADATA", metadata("tensorflow-cpu", "2.16.1"));
    auto snap = r.check();
    ASSERT_NE(framework(snap, "onnxruntime"), nullptr);
    EXPECT_TRUE((*framework(snap, "onnxruntime"))["cuda"].is_null());
    ASSERT_NE(framework(snap, "tensorflow"), nullptr);
    EXPECT_TRUE((*framework(snap, "tensorflow"))["cuda"].is_null());
    EXPECT_EQ((*framework(snap, "tensorflow"))["version"], "2.16.1");
}

}  // namespace cudoctor::test
