// `check` reads the GPU code of the framework's largest CUDA library (torch/lib/libtorch_cuda.so)
// from its fatbin headers: the framework-gpu-arch-unsupported rule then judges the real binary,
// not the knowledge base's list for that wheel. The "libraries" are real nvcc outputs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/files.hpp"
#include "support/json_query.hpp"
#include "support/mutable_root.hpp"

using namespace cudoctor::test;
using nlohmann::json;

namespace {

const std::string kSite = "/home/alice/.local/lib/python3.10/site-packages";
const std::string kLibTorchCuda = kSite + "/torch/lib/libtorch_cuda.so";

std::string artifact_bytes(const std::string& name) { return slurp(std::string(CUDOCTOR_ARCH_ARTIFACTS) + "/" + name); }

const json& torch(const json& snap) {
    for (const auto& f : snap["frameworks"])
        if (f["name"] == "torch") return f;
    throw std::runtime_error("no torch in the snapshot");
}

std::string torch_version_py(const std::string& version, const std::string& cuda) {
    return "__version__ = '" + version + "'\ncuda: Optional[str] = '" + cuda + "'\n";
}

#define NEED_ARTIFACTS() \
    if (std::string(CUDOCTOR_ARCH_ARTIFACTS).empty()) GTEST_SKIP() << "no nvcc: artifacts not built"

}  // namespace

TEST(ArchCheck, FrameworkCarriesTheArchsOfItsLibrary) {
    NEED_ARTIFACTS();
    auto r = MutableRoot("ubuntu2204-rtx4060ti");  // RTX 4060 Ti, compute 8.9
    r.write(kLibTorchCuda, artifact_bytes("multi.so"));
    auto snap = r.check();
    const auto& fw = torch(snap);
    EXPECT_EQ(fw["binary_archs"], json({"sm_75", "sm_80", "sm_90a", "compute_90"}));
    EXPECT_EQ(fw["binary_archs_source"], kLibTorchCuda);
    EXPECT_EQ(finding(snap, "framework-gpu-arch-unsupported"), nullptr);  // sm_80 code runs on 8.9
}

TEST(ArchCheck, TheBinaryOverridesTheKb) {
    NEED_ARTIFACTS();
    // torch 2.8.0+cu126 on an RTX 5090 (12.0): by the KB's list for that wheel it has no kernels …
    auto kb_only = MutableRoot("ubuntu2204-rtx4060ti");
    kb_only.write("/sys/bus/pci/devices/0000:01:00.0/device", "0x2b85\n")
        .write(kSite + "/torch/version.py", torch_version_py("2.8.0+cu126", "12.6"));
    EXPECT_NE(finding(kb_only.check(), "framework-gpu-arch-unsupported"), nullptr);
    // … but this libtorch_cuda.so carries PTX for compute_90, which the driver JIT-compiles for 12.0.
    auto with_ptx = MutableRoot("ubuntu2204-rtx4060ti");
    with_ptx.write("/sys/bus/pci/devices/0000:01:00.0/device", "0x2b85\n")
        .write(kSite + "/torch/version.py", torch_version_py("2.8.0+cu126", "12.6"))
        .write(kLibTorchCuda, artifact_bytes("multi.so"));
    EXPECT_EQ(finding(with_ptx.check(), "framework-gpu-arch-unsupported"), nullptr);
}

TEST(ArchCheck, ALibraryWithoutCodeForTheGpuFires) {
    NEED_ARTIFACTS();
    // SASS for 7.5 and 8.6 only, no PTX: an RTX 5090 (12.0) cannot run it.
    auto r = MutableRoot("ubuntu2204-rtx4060ti");
    r.write("/sys/bus/pci/devices/0000:01:00.0/device", "0x2b85\n").write(kLibTorchCuda, artifact_bytes("sass_75_86.o"));
    auto snap = r.check();
    const json* f = finding(snap, "framework-gpu-arch-unsupported");
    ASSERT_NE(f, nullptr) << snap["findings"].dump(2);
    EXPECT_EQ((*f)["severity"], "error");
    const auto why = (*f)["why"].get<std::string>();
    EXPECT_NE(why.find("libtorch_cuda.so carries GPU code for sm_75 sm_86 only"), std::string::npos) << why;
    EXPECT_EQ((*f)["evidence"][0]["source"], kLibTorchCuda);
    // The same library on the 4060 Ti (8.9) runs its sm_86 code: silent.
    auto ada = MutableRoot("ubuntu2204-rtx4060ti");
    ada.write(kLibTorchCuda, artifact_bytes("sass_75_86.o"));
    EXPECT_EQ(finding(ada.check(), "framework-gpu-arch-unsupported"), nullptr);
}

TEST(ArchCheck, ArchResolvesAPythonPackageAndThisMachinesGpu) {
    NEED_ARTIFACTS();
    auto r = MutableRoot("ubuntu2204-rtx4060ti");
    r.write(kLibTorchCuda, artifact_bytes("sass_75_86.o"));
    // No --gpu: the image's own GPU (an RTX 4060 Ti, 8.9) is judged; "torch" is found in its site folder.
    auto run = run_cudoctor({"arch", "--root", r.path().string(), "--json", "torch"});
    EXPECT_EQ(run.exit_code, 0) << run.describe() << run.err;
    auto j = json::parse(run.out);
    ASSERT_EQ(j["gpus"].size(), 1u);
    EXPECT_EQ(j["gpus"][0]["name"], "GeForce RTX 4060 Ti");
    ASSERT_EQ(j["files"].size(), 1u);
    EXPECT_EQ(j["files"][0]["path"], kLibTorchCuda);
    EXPECT_EQ(j["files"][0]["verdicts"][0]["verdict"], "native-compatible");
    EXPECT_EQ(j["files"][0]["verdicts"][0]["via"], "sm_86");
    auto missing = run_cudoctor({"arch", "--root", r.path().string(), "no_such_package"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(missing.err, "cudoctor arch: no_such_package: no such file, folder or installed Python package\n");
}
