// cudnn-links-flattened on Snapshot literals (named rules_*: the rule coverage test reads the
// fired/silent cases of tests/unit/rules_*_test.cpp only): it fires on the smallest machine that
// has the problem and stays silent on the nearest healthy one; the snapshot field it reads survives
// the JSON round trip (and is absent from older snapshots).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snapshot/snapshot_json.hpp"
#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace cudnnlinks_test {

using ::testing::HasSubstr;

const std::string kLib = "/usr/local/cuda-12.4/targets/x86_64-linux/lib";

/// cuDNN 9.1.0 copied into the 12.4 toolkit, its libcudnn chain as three files of 1 GiB each.
snapshot::Snapshot flattened_machine() {
    auto s = gpu_machine();
    s.toolkits = {toolkit("12.4.131")};
    snapshot::Cudnn c;
    c.version = "9.1.0";
    c.path = kLib;
    c.header_version = "9.1.0";
    c.library_versions = {"9.1.0", "9"};
    c.location = "toolkit";
    c.cuda_major = "12";
    c.flattened = {{"libcudnn.so.9.1.0", {"libcudnn.so.9.1.0", "libcudnn.so.9", "libcudnn.so"}, {"libcudnn.so.9", "libcudnn.so"}, 1u << 30}};
    s.cudnn = {c};
    return s;
}

// --- cudnn-links-flattened ------------------------------------------------------------------------

TEST(CudnnlinksRules, FlattenedChainFiresWithTheLinksToMakeAndTheSpaceItFrees) {
    const auto found = fired("cudnn-links-flattened", flattened_machine());
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_EQ(found[0].title, "cuDNN at " + kLib + ": 2 library names copied as files instead of links (2.0 GiB wasted)");
    // Each name points to the next more precise one, as the archive ships them; then the cache.
    EXPECT_EQ(found[0].fix,
              "sudo ln -sf libcudnn.so.9.1.0 " + kLib + "/libcudnn.so.9\nsudo ln -sf libcudnn.so.9 " + kLib + "/libcudnn.so\nsudo ldconfig");
    EXPECT_TRUE(evidence_mentions(found[0], kLib + "/libcudnn.so.9.1.0"));
    EXPECT_TRUE(evidence_mentions(found[0], "libcudnn.so.9, libcudnn.so"));
}

TEST(CudnnlinksRules, OnlyTheCopiedNamesAreRelinked) {
    auto s = flattened_machine();
    // libcudnn.so is still a link (to libcudnn.so.9): only libcudnn.so.9 was copied.
    s.cudnn[0].flattened[0].copies = {"libcudnn.so.9"};
    const auto found = fired("cudnn-links-flattened", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].fix, "sudo ln -sf libcudnn.so.9.1.0 " + kLib + "/libcudnn.so.9\nsudo ldconfig");
    EXPECT_THAT(found[0].title, HasSubstr("1 library name copied as a file instead of a link (1.0 GiB wasted)"));
}

TEST(CudnnlinksRules, ChainsOfLinksAreSilent) {
    auto s = flattened_machine();
    s.cudnn[0].flattened.clear();
    EXPECT_TRUE(silent("cudnn-links-flattened", s));
}

TEST(CudnnlinksRules, FlattenedChainsRoundTripThroughJsonAndOldSnapshotsHaveNone) {
    auto s = flattened_machine();
    const auto text = snapshot::to_json_value(s).dump();
    auto back = snapshot::from_json_text(text);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->cudnn, s.cudnn);

    auto j = snapshot::to_json_value(s);
    j["cudnn"][0].erase("flattened");  // a snapshot written before the field
    auto old = snapshot::from_json_text(j.dump());
    ASSERT_TRUE(old) << old.error().message;
    EXPECT_TRUE(old->cudnn[0].flattened.empty());
    EXPECT_TRUE(silent("cudnn-links-flattened", *old));
}

}  // namespace cudnnlinks_test
}  // namespace cudoctor::test::rule_cases
