// The safetensors reader: a real file written by tools/record_layers.py from torch tensors (the
// fuzz corpus seed) and hand-cut hostile headers, with the exact error text asserted.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "formats/safetensors.hpp"
#include "support/files.hpp"

using cudoctor::Errc;
using namespace cudoctor::formats;

namespace {

using cudoctor::test::corpus;

/// A file with `header` and `data_bytes` zero bytes of data.
std::string file(const std::string& header, std::size_t data_bytes = 16) {
    std::string s(8, '\0');
    const std::uint64_t n = header.size();
    std::memcpy(s.data(), &n, 8);
    return s + header + std::string(data_bytes, '\0');
}

std::string safetensors_error(const std::string& bytes) {
    auto f = parse_safetensors(bytes);
    return f ? "no error" : f.error().message;
}

}  // namespace

TEST(FormatsSafetensors, RealFileFromTorchKeepsHeaderOrder) {
    const std::string bytes = corpus("safetensors", "torch_mixed.safetensors");
    auto f = parse_safetensors(bytes);
    ASSERT_TRUE(f) << f.error().message;
    ASSERT_EQ(f->tensors.size(), 6u);
    EXPECT_EQ(f->tensors[0].name, "embed");  // the order written, not sorted
    EXPECT_EQ(f->tensors[1].name, "h.bf16");
    EXPECT_EQ(f->tensors[1].dtype, DType::bf16);
    EXPECT_EQ(f->tensors[1].shape, (std::vector<std::uint64_t>{4}));
    EXPECT_EQ(f->tensors[2].dtype, DType::i64);
    EXPECT_EQ(f->tensors[3].dtype, DType::boolean);
    EXPECT_EQ(f->tensors[5].name, "scalar");
    EXPECT_TRUE(f->tensors[5].shape.empty());
    EXPECT_EQ(f->tensors[5].numel(), 1u);
    double v = 0;
    std::memcpy(&v, f->tensors[5].data.data(), 8);
    EXPECT_EQ(v, 1.5);
    EXPECT_EQ(f->metadata.at("producer"), "make_corpus");
    // Views into the input: nothing copied.
    EXPECT_GE(f->tensors[0].data.data(), bytes.data());
    EXPECT_LE(f->tensors[5].data.data() + 8, bytes.data() + bytes.size());
}

TEST(FormatsSafetensors, HeaderLengthPastTheEnd) {
    EXPECT_EQ(safetensors_error(corpus("safetensors", "huge_header_len.safetensors")).substr(0, 42),
              "header length 9223372036854775808 past the");
    const std::string bytes = file("{}", 0);
    std::string longer = bytes;
    longer[0] = 100;
    EXPECT_EQ(safetensors_error(longer), "header length 100 past the end of the file (10 bytes)");
    EXPECT_EQ(parse_safetensors(longer).error().code, Errc::truncated);
    EXPECT_EQ(safetensors_error("abc"), "not a safetensors file: 3 bytes, shorter than the 8-byte header length");
}

TEST(FormatsSafetensors, OffsetsOutsideTheData) {
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,4000]}})")),
              "tensor 'a': data offsets [0, 4000] outside the data (16 bytes)");
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})")),
              "tensor 'a': data_offsets [8, 4] end before they begin");
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[18446744073709551615,18446744073709551615]}})")),
              "tensor 'a': data offsets [18446744073709551615, 18446744073709551615] outside the data (16 bytes)");
}

TEST(FormatsSafetensors, ShapeTimesDtypeMustBeTheByteCount) {
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})")),
              "tensor 'a': shape [3] of F32 needs 12 bytes, the offsets hold 16");
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":"F64","shape":[4294967296,4294967296,16],"data_offsets":[0,16]}})")),
              "tensor 'a': shape [4294967296, 4294967296, 16] of F64 needs more than 2^64 bytes, the offsets hold 16");
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})")),
              "tensor 'a': shape [-4] is not a list of non-negative integers");
    // Zero elements: any other dimension may be huge without overflowing.
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":"F32","shape":[0,18446744073709551615,9],"data_offsets":[0,0]}})")), "no error");
}

TEST(FormatsSafetensors, BadHeaders) {
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":"C64","shape":[2],"data_offsets":[0,16]}})")), "tensor 'a': unknown dtype 'C64'");
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":)")), "not a safetensors file: the header is not valid JSON");
    EXPECT_EQ(safetensors_error(file("[1,2]")), "not a safetensors file: the header is not a JSON object");
    EXPECT_EQ(safetensors_error(file(R"({"a":{"shape":[2],"data_offsets":[0,16]}})")), "tensor 'a': no dtype");
    EXPECT_EQ(safetensors_error(file(R"({"a":{"dtype":"F32","shape":[2]}})")), "tensor 'a': no data_offsets [begin, end]");
    EXPECT_EQ(safetensors_error(file(R"({"__metadata__":[1]})")), "__metadata__ is not a JSON object");
    EXPECT_EQ(safetensors_error(file(std::string(R"({"a":)") + std::string(400, '[') + std::string(400, ']') + "}")),
              "tensor 'a': not a JSON object");
}

TEST(FormatsSafetensors, EveryDtypeName) {
    for (const char* name :
         {"F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64", "BOOL"}) {
        auto t = dtype_from_name(name);
        ASSERT_TRUE(t) << name;
        EXPECT_EQ(dtype_name(*t), name);
    }
    EXPECT_FALSE(dtype_from_name("f32"));
    EXPECT_EQ(dtype_size(DType::bf16), 2u);
    EXPECT_EQ(dtype_size(DType::boolean), 1u);
}
