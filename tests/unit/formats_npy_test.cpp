// The .npy reader: files written by NumPy itself (the fuzz corpus seeds: every dtype, a scalar, an
// empty array, format 2.0) and malformed ones, with the exact error text asserted.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "formats/npy.hpp"
#include "support/files.hpp"

using cudoctor::Errc;
using namespace cudoctor::formats;

namespace {

using cudoctor::test::corpus;

std::string npy_error(const std::string& bytes) {
    auto t = parse_npy(bytes);
    return t ? "no error" : t.error().message;
}

/// A version 1.0 file with this header dict and `data` after it.
std::string npy(const std::string& dict, const std::string& data) {
    std::string s = "\x93NUMPY\x01";
    s += '\0';
    const std::uint16_t n = static_cast<std::uint16_t>(dict.size());
    s.append(reinterpret_cast<const char*>(&n), 2);
    return s + dict + data;
}

}  // namespace

TEST(FormatsNpy, NumpysOwnFiles) {
    // parse_npy returns views into the bytes: keep them alive while the views are used.
    const std::string f4 = corpus("npy", "f4_2x3.npy");
    auto t = parse_npy(f4);
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->dtype, DType::f32);
    EXPECT_EQ(t->shape, (std::vector<std::uint64_t>{2, 3}));
    float v[6];
    std::memcpy(v, t->data.data(), 24);
    EXPECT_EQ(v[5], 5.0f);
    const std::pair<const char*, DType> kinds[] = {{"f8.npy", DType::f64},      {"f2.npy", DType::f16},       {"i8.npy", DType::i64},
                                                   {"u1.npy", DType::u8},       {"bool.npy", DType::boolean}, {"i2.npy", DType::i16},
                                                   {"version2.npy", DType::u32}};
    for (const auto& [name, dtype] : kinds) {
        const std::string bytes = corpus("npy", name);
        auto k = parse_npy(bytes);
        ASSERT_TRUE(k) << name << ": " << k.error().message;
        EXPECT_EQ(k->dtype, dtype) << name;
    }
    const std::string scalar_bytes = corpus("npy", "scalar.npy"), empty_bytes = corpus("npy", "empty.npy");
    auto scalar = parse_npy(scalar_bytes);
    ASSERT_TRUE(scalar);
    EXPECT_TRUE(scalar->shape.empty());
    auto empty = parse_npy(empty_bytes);
    ASSERT_TRUE(empty);
    EXPECT_EQ(empty->shape, (std::vector<std::uint64_t>{0, 3}));
    EXPECT_TRUE(empty->data.empty());
}

TEST(FormatsNpy, Unsupported) {
    EXPECT_EQ(npy_error(corpus("npy", "fortran.npy")), "Fortran-ordered arrays are not supported: save with np.ascontiguousarray()");
    EXPECT_EQ(npy_error(corpus("npy", "big_endian.npy")), "big-endian arrays ('>f4') are not supported: save with .astype('<f4')");
    EXPECT_EQ(npy_error(corpus("npy", "complex.npy")),
              "unsupported element type '<c16' (complex, string, datetime and structured arrays are not tensors)");
    EXPECT_EQ(npy_error(corpus("npy", "structured.npy")), "structured arrays (a list as 'descr') are not supported");
    EXPECT_EQ(parse_npy(corpus("npy", "structured.npy")).error().code, Errc::unsupported);
}

TEST(FormatsNpy, Malformed) {
    EXPECT_EQ(npy_error("PK\x03\x04"), "not a .npy file (no \\x93NUMPY magic)");
    EXPECT_EQ(npy_error(corpus("npy", "header_past_end.npy")), "header length 60000 past the end (152 bytes)");
    EXPECT_EQ(npy_error(corpus("npy", "truncated_data.npy")), "shape [2, 3] of <f4 needs 24 bytes, the file holds 21");
    EXPECT_EQ(npy_error(corpus("npy", "left_over.npy")), "shape [2, 3] of <f4 needs 24 bytes, the file holds 28 (4 left over)");
    EXPECT_EQ(npy_error(corpus("npy", "bad_dict.npy")),
              "the .npy header lacks 'descr', 'fortran_order' or 'shape'");  // 'shap"' is another key
    EXPECT_EQ(npy_error(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,) 'x': 1}", std::string(8, '\0'))),
              "the .npy header is not the dict NumPy writes");
    EXPECT_EQ(npy_error(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2), }", "")),
              "shape [4294967296, 4294967296, 2] of <f8 needs more than 2^64 bytes, the file holds 0");
    EXPECT_EQ(npy_error(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }", "")),
              "the .npy header's shape is not a tuple of non-negative integers");
    EXPECT_EQ(npy_error(npy("{'descr': '<f8', 'shape': (1,), }", std::string(8, '\0'))),
              "the .npy header lacks 'descr', 'fortran_order' or 'shape'");
    EXPECT_EQ(npy_error(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } x", std::string(8, '\0'))),
              "the .npy header is not the dict NumPy writes");
    EXPECT_EQ(npy_error(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", std::string(4, '\0'))), "no error");
    EXPECT_EQ(npy_error(std::string("\x93NUMPY\x01", 7)), "truncated .npy header (7 bytes)");
    EXPECT_EQ(npy_error(std::string("\x93NUMPY\x09\x00\x00\x00", 10)), ".npy format version 9 is not known");
}
