#pragma once
// The C libraries that unpack and scan, opened on their first use (common/shared_library.hpp
// says why). Each accessor opens its library once, thread-safely, and binds the functions the
// tool calls; `error` says why it cannot be used, and a caller returns that as its own error.
#include <hs/hs.h>
#include <lz4.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

namespace cudoctor::formats {

struct Zlib {
    decltype(&::inflateInit2_) inflate_init2_ = nullptr;
    decltype(&::inflate) inflate = nullptr;
    decltype(&::inflateReset) inflate_reset = nullptr;
    decltype(&::inflateEnd) inflate_end = nullptr;
    decltype(&::crc32) crc32 = nullptr;
    std::string error;

    /// zlib.h's inflateInit2 macro: the header's version and z_stream size go with the call.
    int inflate_init2(z_stream* z, int window_bits) const {
        return inflate_init2_(z, window_bits, ZLIB_VERSION, static_cast<int>(sizeof(z_stream)));
    }
};

struct Lzma {
    decltype(&::lzma_stream_decoder_mt) stream_decoder_mt = nullptr;
    decltype(&::lzma_code) code = nullptr;
    decltype(&::lzma_end) end = nullptr;
    std::string error;
};

struct Zstd {
    decltype(&::ZSTD_createDCtx) create_dctx = nullptr;
    decltype(&::ZSTD_freeDCtx) free_dctx = nullptr;
    decltype(&::ZSTD_DCtx_setParameter) dctx_set_parameter = nullptr;
    decltype(&::ZSTD_decompressStream) decompress_stream = nullptr;
    decltype(&::ZSTD_decompress) decompress = nullptr;
    decltype(&::ZSTD_getFrameContentSize) get_frame_content_size = nullptr;
    decltype(&::ZSTD_isError) is_error = nullptr;
    decltype(&::ZSTD_getErrorName) get_error_name = nullptr;
    std::string error;
};

struct Lz4 {
    decltype(&::LZ4_decompress_safe) decompress_safe = nullptr;
    std::string error;
};

struct Vectorscan {
    decltype(&::hs_valid_platform) valid_platform = nullptr;
    decltype(&::hs_compile_multi) compile_multi = nullptr;
    decltype(&::hs_compile_lit_multi) compile_lit_multi = nullptr;
    decltype(&::hs_free_compile_error) free_compile_error = nullptr;
    decltype(&::hs_free_database) free_database = nullptr;
    decltype(&::hs_alloc_scratch) alloc_scratch = nullptr;
    decltype(&::hs_free_scratch) free_scratch = nullptr;
    decltype(&::hs_scan) scan = nullptr;
    std::string error;
};

const Zlib& libz();
const Lzma& liblzma();
const Zstd& libzstd();
const Lz4& liblz4();
const Vectorscan& libhs();

}  // namespace cudoctor::formats
