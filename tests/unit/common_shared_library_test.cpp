// The libraries cudoctor opens on first use instead of linking (common/shared_library.hpp,
// formats/opened_libraries.hpp): each opens by the soname its header names and binds every
// function the tool calls, a missing library or function is an error that names it, and the
// built binary really does not link them (what the change is for).
#include <gtest/gtest.h>

#include <zstd_errors.h>

#include "common/shared_library.hpp"
#include "formats/elf.hpp"
#include "formats/opened_libraries.hpp"
#include "support/files.hpp"

namespace {

using cudoctor::SharedLibrary;
namespace formats = cudoctor::formats;

}  // namespace

TEST(SharedLibrary, AMissingLibraryIsAnErrorThatNamesIt) {
    SharedLibrary lib("libcudoctor-no-such-library.so.7");
    void (*function)() = nullptr;
    lib.bind("anything", function);
    EXPECT_EQ(function, nullptr);
    EXPECT_NE(lib.error().find("libcudoctor-no-such-library.so.7"), std::string::npos) << lib.error();
}

TEST(SharedLibrary, AMissingFunctionIsAnErrorThatNamesTheFirst) {
    SharedLibrary lib(CUDOCTOR_SONAME("libz", ZLIB_VER_MAJOR));
    decltype(&::inflate) inflate = nullptr;
    void (*absent)() = nullptr;
    void (*also_absent)() = nullptr;
    lib.bind("inflate", inflate);
    EXPECT_NE(inflate, nullptr);
    EXPECT_EQ(lib.error(), "");
    lib.bind("cudoctor_no_such_function", absent);
    lib.bind("cudoctor_nor_this_one", also_absent);
    EXPECT_EQ(absent, nullptr);
    EXPECT_EQ(lib.error(), "libz.so.1 has no cudoctor_no_such_function");
}

TEST(SharedLibrary, EveryOpenedLibraryBindsEveryFunction) {
    EXPECT_EQ(formats::libz().error, "");
    EXPECT_EQ(formats::liblzma().error, "");
    EXPECT_EQ(formats::libzstd().error, "");
    EXPECT_EQ(formats::liblz4().error, "");
    EXPECT_EQ(formats::libhs().error, "");
}

TEST(SharedLibrary, TheBoundFunctionsAreTheLibrariesOwn) {
    // Known answers: CRC-32 of "123456789" is 0xCBF43926; a zstd error code has its name.
    const auto& z = formats::libz();
    ASSERT_EQ(z.error, "");
    const char* text = "123456789";
    EXPECT_EQ(z.crc32(z.crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(text), 9), 0xCBF43926u);
    z_stream stream{};
    ASSERT_EQ(z.inflate_init2(&stream, -MAX_WBITS), Z_OK);
    EXPECT_EQ(z.inflate_end(&stream), Z_OK);

    const auto& zstd = formats::libzstd();
    ASSERT_EQ(zstd.error, "");
    const std::size_t too_small = static_cast<std::size_t>(-ZSTD_error_dstSize_tooSmall);
    EXPECT_TRUE(zstd.is_error(too_small));
    EXPECT_STREQ(zstd.get_error_name(too_small), "Destination buffer is too small");
    const char not_a_frame[8] = {'n', 'o', 't', ' ', 'z', 's', 't', 'd'};
    EXPECT_EQ(zstd.get_frame_content_size(not_a_frame, sizeof not_a_frame), ZSTD_CONTENTSIZE_ERROR);

    const auto& lz4 = formats::liblz4();
    ASSERT_EQ(lz4.error, "");
    // One LZ4 block sequence: a token of 3 literals and no match, then the literals.
    const char block[4] = {0x30, 'a', 'b', 'c'};
    char out[3] = {};
    EXPECT_EQ(lz4.decompress_safe(block, out, 4, 3), 3);
    EXPECT_EQ(std::string(out, 3), "abc");

    const auto& hs = formats::libhs();
    ASSERT_EQ(hs.error, "");
    EXPECT_EQ(hs.valid_platform(), HS_SUCCESS);  // this machine has SSSE3
}

TEST(SharedLibrary, TheBinaryLinksNoneOfThem) {
    const std::string bytes = cudoctor::test::slurp(CUDOCTOR_BINARY);
    ASSERT_FALSE(bytes.empty());
    auto elf = formats::parse_elf(bytes);
    ASSERT_TRUE(elf) << elf.error().message;
    auto needed = formats::needed_libraries(bytes, *elf);
    ASSERT_TRUE(needed) << needed.error().message;
    ASSERT_FALSE(needed->empty());  // a dynamic binary: libc at least
    for (const char* opened : {"libz.so", "liblzma.so", "libzstd.so", "liblz4.so", "libhs.so", "libcrypto.so"}) {
        for (const auto& name : *needed) EXPECT_FALSE(name.starts_with(opened)) << name << " is linked";
    }
}
