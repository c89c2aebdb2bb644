// One version model: a toolkit's release (12.6.2) and its component versions (nvcc 12.6.77) are
// kept apart, and everything compared with a release table asks kb/toolkit_release.hpp, which
// maps components to the releases that shipped them and answers for the most lenient.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kb/toolkit_release.hpp"
#include "snapshot/snapshot_json.hpp"
#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace {

using ::testing::HasSubstr;

const kb::Kb& versions_kb() { return kb::Kb::builtin(); }

Version ver(const char* text) { return *Version::parse(text); }

/// The toolkit as the probe records the CUDA 12.6.2 runfile's version.json.
snapshot::Toolkit versions_runfile_1262() {
    auto tk = toolkit("12.6.77");
    tk.release = "12.6.2";
    tk.release_source = "version.json";
    tk.components = {{"cuda_nvcc", "12.6.77"}, {"cuda_cudart", "12.6.77"}};
    return tk;
}

/// A toolkit known only by its nvcc (no version.json: `nvcc --version`, a wheel, a package).
snapshot::Toolkit versions_nvcc_only(const std::string& nvcc) {
    auto tk = toolkit(nvcc);
    tk.version_source = "nvcc";
    tk.components = {{"cuda_nvcc", nvcc}};
    return tk;
}

TEST(VersionsKb, ComponentMapsToTheReleasesThatShippedIt) {
    EXPECT_EQ(versions_kb().releases_with_component("cuda_nvcc", ver("12.6.77")), std::vector<Version>{ver("12.6.2")});
    EXPECT_EQ(versions_kb().releases_with_component("cuda_nvcc", ver("12.6.85")), std::vector<Version>{ver("12.6.3")});
    EXPECT_EQ(versions_kb().releases_with_component("cuda_cudart", ver("12.6.77")), (std::vector<Version>{ver("12.6.2"), ver("12.6.3")}));
    EXPECT_EQ(versions_kb().releases_with_component("cuda_nvcc", ver("13.0.88")), (std::vector<Version>{ver("13.0.1"), ver("13.0.2")}));
    EXPECT_TRUE(versions_kb().releases_with_component("cuda_nvcc", ver("12.6.99")).empty());
    EXPECT_TRUE(versions_kb().releases_with_component("cuda_cublas", ver("12.6.77")).empty());
}

TEST(VersionsKb, EveryComponentRowNamesAReleaseOfTheDriverTable) {
    for (const auto& c : versions_kb().component_table()) {
        EXPECT_TRUE(versions_kb().toolkit_release(c.release)) << c.component << " " << c.version.str() << " → " << c.release.str();
        EXPECT_EQ(c.version.truncated(2), c.release.truncated(2)) << c.component << " " << c.version.str();
    }
}

TEST(VersionsRelease, KnownReleaseIsUsedAsIs) {
    EXPECT_EQ(kb::possible_releases(versions_kb(), versions_runfile_1262()), std::vector<Version>{ver("12.6.2")});
    EXPECT_EQ(kb::min_driver_for(versions_kb(), versions_runfile_1262()), ver("560.35.03"));
    EXPECT_EQ(kb::release_label(versions_kb(), versions_runfile_1262()), "12.6.2");
}

TEST(VersionsRelease, NvccAloneMapsToItsRelease) {
    // The old model looked 12.6.77 up as a release: the highest row below it, 12.6.3 (560.35.05).
    EXPECT_EQ(kb::possible_releases(versions_kb(), versions_nvcc_only("12.6.77")), std::vector<Version>{ver("12.6.2")});
    EXPECT_EQ(kb::min_driver_for(versions_kb(), versions_nvcc_only("12.6.77")), ver("560.35.03"));
    EXPECT_EQ(kb::release_label(versions_kb(), versions_nvcc_only("12.6.77")), "12.6.2");
}

TEST(VersionsRelease, ComponentsThatAgreeNarrowTheRelease) {
    auto tk = versions_nvcc_only("13.0.88");
    EXPECT_EQ(kb::possible_releases(versions_kb(), tk), (std::vector<Version>{ver("13.0.1"), ver("13.0.2")}));
    EXPECT_EQ(kb::min_driver_for(versions_kb(), tk), ver("580.82.07"));  // the more lenient of the two
    EXPECT_EQ(kb::release_label(versions_kb(), tk), "");                 // not one release: say nothing
    tk.components.push_back({"cuda_cudart", "13.0.96"});                 // the wheels of /usr/local/cuda-13.0 here
    EXPECT_EQ(kb::possible_releases(versions_kb(), tk), std::vector<Version>{ver("13.0.2")});
    EXPECT_EQ(kb::release_label(versions_kb(), tk), "13.0.2");
}

TEST(VersionsRelease, UnknownComponentFallsBackToTheMostLenientReleaseOfItsMinor) {
    auto tk = versions_nvcc_only("12.6.99");  // a build the table does not know
    EXPECT_EQ(kb::possible_releases(versions_kb(), tk), (std::vector<Version>{ver("12.6.0"), ver("12.6.1"), ver("12.6.2"), ver("12.6.3")}));
    EXPECT_EQ(kb::min_driver_for(versions_kb(), tk), ver("560.28.03"));
}

TEST(VersionsRelease, DateStampedReleaseKeepsItsMinorAndTheComponentDecides) {
    auto tk = versions_nvcc_only("12.6.85");
    tk.release = "12.6";  // version.json "cuda": "12.6.20241114"
    EXPECT_EQ(kb::possible_releases(versions_kb(), tk), std::vector<Version>{ver("12.6.3")});
}

// --- driver-too-old-for-toolkit compares releases ----------------------------------------------

TEST(VersionsDriverRule, Runfile1262WithItsBundledDriverIsSilent) {
    auto s = gpu_machine("560.35.03");
    s.toolkits = {versions_runfile_1262()};
    EXPECT_TRUE(silent("driver-too-old-for-toolkit", s));
}

TEST(VersionsDriverRule, OnlyNvcc12677KnownWithDriver5603503IsSilent) {
    auto s = gpu_machine("560.35.03");
    s.toolkits = {versions_nvcc_only("12.6.77")};
    EXPECT_TRUE(silent("driver-too-old-for-toolkit", s));
}

TEST(VersionsDriverRule, OldSnapshotWithOnlyAVersionIsSilentToo) {
    // A snapshot written before the version model: no release, no components, version 12.6.77.
    auto s = gpu_machine("560.35.03");
    s.toolkits = {toolkit("12.6.77")};
    EXPECT_TRUE(silent("driver-too-old-for-toolkit", s));
}

TEST(VersionsDriverRule, Nvcc12685Is1263AndStillNeedsItsDriver) {
    // The mapping keeps true alarms: nvcc 12.6.85 shipped only in 12.6.3, which needs 560.35.05.
    auto s = gpu_machine("560.35.03");
    s.toolkits = {versions_nvcc_only("12.6.85")};
    const auto found = fired("driver-too-old-for-toolkit", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("minimum 560.35.05"));
    EXPECT_TRUE(evidence_mentions(found[0], "CUDA 12.6.3 (nvcc 12.6.85)"));
}

TEST(VersionsDriverRule, CudartSharedByTwoReleasesTakesTheLenientOne) {
    // cudart 12.6.77 shipped in 12.6.2 (560.35.03) and 12.6.3 (560.35.05): not proven too old.
    auto s = gpu_machine("560.35.03");
    auto tk = toolkit("12.6.77", "/usr/local/cuda-12.6");
    tk.components = {{"cuda_cudart", "12.6.77"}};
    tk.has_nvcc = false;
    s.toolkits = {tk};
    EXPECT_TRUE(silent("driver-too-old-for-toolkit", s));
}

// --- the snapshot JSON --------------------------------------------------------------------------

TEST(VersionsSnapshotJson, ReleaseAndComponentsRoundTrip) {
    snapshot::Snapshot s;
    s.toolkits = {versions_runfile_1262()};
    auto back = snapshot::from_json_text(snapshot::to_json_value(s).dump());
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_EQ(back->toolkits.size(), 1u);
    EXPECT_EQ(back->toolkits[0].release, "12.6.2");
    EXPECT_EQ(back->toolkits[0].release_source, "version.json");
    EXPECT_EQ(back->toolkits[0].components, (std::vector<snapshot::ToolkitComponent>{{"cuda_nvcc", "12.6.77"}, {"cuda_cudart", "12.6.77"}}));
    EXPECT_EQ(back->toolkits[0], s.toolkits[0]);
}

TEST(VersionsSnapshotJson, OldSnapshotWithoutTheFieldsStillReads) {
    auto back = snapshot::from_json_text(
        R"({"schema": 1, "toolkits": [{"version": "12.6.77", "version_source": "version.json", "path": "/usr/local/cuda-12.6"}]})");
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_EQ(back->toolkits.size(), 1u);
    EXPECT_EQ(back->toolkits[0].release, "");
    EXPECT_TRUE(back->toolkits[0].components.empty());
    EXPECT_EQ(kb::min_driver_for(versions_kb(), back->toolkits[0]), ver("560.35.03"));
}

}  // namespace
}  // namespace cudoctor::test::rule_cases
