// The .npz (zip) reader: archives written by np.savez and np.savez_compressed (the fuzz corpus
// seeds), and broken ones: truncated, a central directory outside the file, a forged size, a
// corrupt deflate stream.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "formats/npy.hpp"
#include "formats/npz.hpp"
#include "support/files.hpp"

using cudoctor::Errc;
using namespace cudoctor::formats;

namespace {

using cudoctor::test::corpus;

}  // namespace

TEST(FormatsNpz, StoredMembersAreViewsInPlace) {
    const std::string bytes = corpus("npz", "stored.npz");
    auto entries = read_zip_directory(bytes);
    ASSERT_TRUE(entries) << entries.error().message;
    ASSERT_EQ(entries->size(), 3u);
    EXPECT_EQ((*entries)[0].name, "conv.weight.npy");  // the order np.savez wrote them
    EXPECT_EQ((*entries)[1].name, "ids.npy");
    EXPECT_EQ((*entries)[0].method, 0);
    auto member = stored_member(bytes, (*entries)[0]);
    ASSERT_TRUE(member);
    EXPECT_GE(member->data(), bytes.data());  // no copy
    auto t = parse_npy(*member);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->shape, (std::vector<std::uint64_t>{3, 4}));
}

TEST(FormatsNpz, Zip64AsNumpyWritesItForBigArrays) {
    // zipfile's ZIP64 limit lowered while np.savez wrote it: 0xffffffff sizes and offsets in the
    // central directory, the real values in ZIP64 extra fields, ZIP64 end records.
    const std::string bytes = corpus("npz", "zip64.npz");
    auto entries = read_zip_directory(bytes);
    ASSERT_TRUE(entries) << entries.error().message;
    ASSERT_EQ(entries->size(), 3u);
    EXPECT_EQ((*entries)[1].name, "ids.npy");
    EXPECT_EQ((*entries)[1].uncompressed_size, 152u);
    for (const auto& e : *entries) {
        auto member = stored_member(bytes, e);
        ASSERT_TRUE(member) << e.name << ": " << member.error().message;
        auto t = parse_npy(*member);
        ASSERT_TRUE(t) << e.name << ": " << t.error().message;
    }
}

TEST(FormatsNpz, DeflatedMembersInflateWithTheirCrcChecked) {
    const std::string bytes = corpus("npz", "deflated.npz");
    auto entries = read_zip_directory(bytes);
    ASSERT_TRUE(entries) << entries.error().message;
    ASSERT_EQ(entries->size(), 3u);
    EXPECT_EQ((*entries)[0].method, 8);
    EXPECT_EQ(stored_member(bytes, (*entries)[0]).error().message, "zip member 'conv.weight.npy' is compressed");
    auto inflated = inflate_member(bytes, (*entries)[0], 1u << 20);
    ASSERT_TRUE(inflated) << inflated.error().message;
    auto t = parse_npy(*inflated);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->dtype, DType::f32);
    EXPECT_EQ(inflate_member(bytes, (*entries)[0], 100).error().message,
              "zip member 'conv.weight.npy' inflates to " + std::to_string((*entries)[0].uncompressed_size) + " bytes, over the limit of 100");
}

TEST(FormatsNpz, ForgedSizeIsRefusedBeforeAnyAllocation) {
    const std::string bytes = corpus("npz", "forged_size.npz");
    auto entries = read_zip_directory(bytes);
    ASSERT_TRUE(entries) << entries.error().message;
    const auto& e = (*entries)[0];
    EXPECT_EQ(e.uncompressed_size, 0xFFFFFFF0u);
    auto r = inflate_member(bytes, e, std::uint64_t{1} << 40);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::too_large);
    EXPECT_EQ(r.error().message, "zip member 'conv.weight.npy' claims 4294967280 bytes from " + std::to_string(e.compressed_size) +
                                     " compressed: more than deflate can encode");
}

TEST(FormatsNpz, BrokenArchives) {
    EXPECT_EQ(read_zip_directory(corpus("npz", "truncated.npz")).error().message, "not a zip archive (no end-of-central-directory record)");
    EXPECT_EQ(read_zip_directory("PK").error().message, "not a zip archive (2 bytes)");
    const auto outside = read_zip_directory(corpus("npz", "cd_outside.npz"));
    ASSERT_FALSE(outside);
    EXPECT_EQ(outside.error().message.substr(0, 31), "central directory [2147483632, ");
    const std::string corrupt = corpus("npz", "corrupt_deflate.npz");
    auto entries = read_zip_directory(corrupt);
    ASSERT_TRUE(entries);
    auto r = inflate_member(corrupt, (*entries)[0], 1u << 20);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Errc::parse);
}
