// The version model and the toolkit folder's owner on whole machines:
//  * ubuntu2204-cuda1262-runfile: the CUDA 12.6.2 runfile (nvcc 12.6.77) with the 560.35.03 driver
//    it bundles — a healthy machine that the old model told its driver was too old (it read nvcc's
//    12.6.77 as a release and took 12.6.3's 560.35.05);
//  * debian12-cuda130-wheels: /usr/local/cuda-13.0 assembled from NVIDIA's wheels (a dist-info/
//    folder, nvcc in bin/), /usr/local/cuda → it — a system toolkit, not a pip install.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;

std::string versions_root(const std::string& scenario) { return std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario; }

const std::string kVersionsRunfile = "ubuntu2204-cuda1262-runfile";
const std::string kVersionsWheels = "debian12-cuda130-wheels";

json versions_run_json(const std::vector<std::string>& args, std::vector<int> ok_exits = {0}) {
    auto run = run_cudoctor(args);
    bool ok = false;
    for (int e : ok_exits) ok = ok || run.exit_code == e;
    EXPECT_TRUE(ok) << run.describe() << "\n" << run.err << "\n" << run.out.substr(0, 4000);
    try {
        return json::parse(run.out);
    } catch (const json::exception& e) {
        ADD_FAILURE() << "not JSON: " << e.what() << "\n" << run.out.substr(0, 4000) << "\n" << run.err;
        return json::object();
    }
}

// --- ubuntu2204-cuda1262-runfile --------------------------------------------------------------

TEST(VersionsRunfile1262, CheckReportsNoDriverFinding) {
    const json snap = versions_run_json({"check", "--root", versions_root(kVersionsRunfile), "--json"}, {0, 1});
    ASSERT_TRUE(snap.contains("findings")) << snap.dump().substr(0, 2000);
    for (const auto& f : snap["findings"]) {
        EXPECT_NE(f["layer"], "driver") << f.dump();
        EXPECT_NE(f["id"], "driver-too-old-for-toolkit") << f.dump();
    }
    EXPECT_EQ(snap["driver"]["kernel_module_version"], "560.35.03");
}

TEST(VersionsRunfile1262, SnapshotKeepsTheReleaseAndTheComponents) {
    const json snap = versions_run_json({"check", "--root", versions_root(kVersionsRunfile), "--json"}, {0, 1});
    ASSERT_EQ(snap["toolkits"].size(), 1u) << snap["toolkits"].dump();
    const auto& tk = snap["toolkits"][0];
    EXPECT_EQ(tk["path"], "/usr/local/cuda-12.6");
    EXPECT_EQ(tk["version"], "12.6.77");  // what nvcc --version says
    EXPECT_EQ(tk["release"], "12.6.2");   // what NVIDIA's tables and the runfile's name say
    EXPECT_EQ(tk["release_source"], "version.json");
    EXPECT_EQ(tk["components"],
              json::parse(R"([{"name": "cuda_nvcc", "version": "12.6.77"}, {"name": "cuda_cudart", "version": "12.6.77"}])"));
}

TEST(VersionsRunfile1262, ListShowsTheReleaseWithTheNvccVersion) {
    auto run = run_cudoctor({"list", "--root", versions_root(kVersionsRunfile)});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("12.6.2 (nvcc 12.6.77)"), std::string::npos) << run.out;
}

TEST(VersionsRunfile1262, CheckTextShowsTheRelease) {
    auto run = run_cudoctor({"check", "--root", versions_root(kVersionsRunfile)});
    ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << run.err;
    EXPECT_NE(run.out.find("CUDA 12.6.2 (nvcc 12.6.77)"), std::string::npos) << run.out;
}

TEST(VersionsRunfile1262, PlanKeepsTheToolkitAndItsDriver) {
    // `plan` looks the kept toolkit up in the release table too: 12.6.2 needs 560.35.03, which is here.
    const json j =
        versions_run_json({"plan", "--root", versions_root(kVersionsRunfile), "--framework", "torch==2.6", "--need", "nvcc", "--json"});
    for (const auto& step : j["steps"]) EXPECT_NE(step["layer"], "driver") << step.dump();
    bool kept_driver = false, kept_toolkit = false;
    for (const auto& k : j["kept"]) {
        kept_driver |= k["layer"] == "driver";
        kept_toolkit |= k["layer"] == "toolkit";
    }
    EXPECT_TRUE(kept_driver) << j.dump(2).substr(0, 4000);
    EXPECT_TRUE(kept_toolkit) << j.dump(2).substr(0, 4000);
}

// --- debian12-cuda130-wheels ------------------------------------------------------------------

TEST(VersionsWheelsToolkit, ListShowsASystemToolkitWithItsSize) {
    const json j = versions_run_json({"list", "--root", versions_root(kVersionsWheels), "--json"});
    ASSERT_EQ(j["toolkits"].size(), 1u) << j.dump();
    const auto& tk = j["toolkits"][0];
    EXPECT_EQ(tk["path"], "/usr/local/cuda-13.0");
    EXPECT_NE(tk["install_method"], "pip");
    EXPECT_TRUE(tk["is_default"]);
    ASSERT_TRUE(tk["size_bytes"].is_number()) << tk.dump();
    EXPECT_GT(tk["size_bytes"].get<std::uint64_t>(), 10000u);  // the stub libraries alone
}

TEST(VersionsWheelsToolkit, CheckSeesNvccAndTheDefault) {
    const json snap = versions_run_json({"check", "--root", versions_root(kVersionsWheels), "--json"}, {0, 1});
    ASSERT_EQ(snap["toolkits"].size(), 1u) << snap["toolkits"].dump();
    const auto& tk = snap["toolkits"][0];
    EXPECT_EQ(tk["install_method"], "unknown");
    EXPECT_TRUE(tk["has_nvcc"]);
    EXPECT_TRUE(tk["is_default"]);
    EXPECT_EQ(tk["version"], "13.0.88");
    EXPECT_EQ(tk["components"],
              json::parse(R"([{"name": "cuda_nvcc", "version": "13.0.88"}, {"name": "cuda_cudart", "version": "13.0.96"}])"));
}

TEST(VersionsWheelsToolkit, OpencvCmakeBuildsWithIt) {
    auto run = run_cudoctor({"opencv", "cmake", "--root", versions_root(kVersionsWheels), "--gpu", "9.0"});
    ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.describe() << "\n" << run.err << run.out;
    EXPECT_EQ(run.err.find("no CUDA toolkit with nvcc"), std::string::npos) << run.err;
    EXPECT_NE(run.out.find("CUDA_TOOLKIT_ROOT_DIR=/usr/local/cuda-13.0"), std::string::npos) << run.out;
}

TEST(VersionsWheelsToolkit, SwitchKnowsItIsTheDefault) {
    auto run = run_cudoctor({"switch", "13.0", "--root", versions_root(kVersionsWheels)});
    EXPECT_EQ(run.exit_code, 0) << run.describe() << "\n" << run.err << run.out;
    EXPECT_EQ(run.err.find("never the machine default"), std::string::npos) << run.err;
    EXPECT_NE(run.out.find("/usr/local/cuda already points at /usr/local/cuda-13.0"), std::string::npos) << run.out;
}

TEST(VersionsWheelsToolkit, UninstallPlansTheFolderNotOnlyTheLink) {
    const json j = versions_run_json({"uninstall", "13.0", "--root", versions_root(kVersionsWheels), "--json"});
    ASSERT_TRUE(j.contains("plan")) << j.dump();
    std::vector<std::string> removed;
    for (const auto& step : j["plan"]["steps"])
        if (step["kind"] == "remove_tree") removed.push_back(step["path"]);
    EXPECT_NE(std::find(removed.begin(), removed.end(), "/usr/local/cuda-13.0"), removed.end()) << j.dump(2);
    EXPECT_NE(std::find(removed.begin(), removed.end(), "/usr/local/cuda"), removed.end()) << j.dump(2);
    const std::string notes = j["plan"]["notes"].dump();
    EXPECT_EQ(notes.find("pip copy of CUDA"), std::string::npos) << notes;
    EXPECT_FALSE(j.value("applied", false));
}

}  // namespace
}  // namespace cudoctor::test
