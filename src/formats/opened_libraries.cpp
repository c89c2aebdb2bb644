#include "formats/opened_libraries.hpp"

#include "common/shared_library.hpp"

namespace cudoctor::formats {
namespace {

constexpr const char* kZlib = CUDOCTOR_SONAME("libz", ZLIB_VER_MAJOR);
constexpr const char* kLzma = CUDOCTOR_SONAME("liblzma", LZMA_VERSION_MAJOR);
constexpr const char* kZstd = CUDOCTOR_SONAME("libzstd", ZSTD_VERSION_MAJOR);
constexpr const char* kLz4 = CUDOCTOR_SONAME("liblz4", LZ4_VERSION_MAJOR);
constexpr const char* kVectorscan = CUDOCTOR_SONAME("libhs", HS_MAJOR);

}  // namespace

const Zlib& libz() {
    static const Zlib loaded = SharedLibrary::open<Zlib>(kZlib, [](SharedLibrary& lib, Zlib& z) {
        lib.bind("inflateInit2_", z.inflate_init2_);
        lib.bind("inflate", z.inflate);
        lib.bind("inflateReset", z.inflate_reset);
        lib.bind("inflateEnd", z.inflate_end);
        lib.bind("crc32", z.crc32);
    });
    return loaded;
}

const Lzma& liblzma() {
    static const Lzma loaded = SharedLibrary::open<Lzma>(kLzma, [](SharedLibrary& lib, Lzma& x) {
        lib.bind("lzma_stream_decoder_mt", x.stream_decoder_mt);
        lib.bind("lzma_code", x.code);
        lib.bind("lzma_end", x.end);
    });
    return loaded;
}

const Zstd& libzstd() {
    static const Zstd loaded = SharedLibrary::open<Zstd>(kZstd, [](SharedLibrary& lib, Zstd& z) {
        lib.bind("ZSTD_createDCtx", z.create_dctx);
        lib.bind("ZSTD_freeDCtx", z.free_dctx);
        lib.bind("ZSTD_DCtx_setParameter", z.dctx_set_parameter);
        lib.bind("ZSTD_decompressStream", z.decompress_stream);
        lib.bind("ZSTD_decompress", z.decompress);
        lib.bind("ZSTD_getFrameContentSize", z.get_frame_content_size);
        lib.bind("ZSTD_isError", z.is_error);
        lib.bind("ZSTD_getErrorName", z.get_error_name);
    });
    return loaded;
}

const Lz4& liblz4() {
    static const Lz4 loaded =
        SharedLibrary::open<Lz4>(kLz4, [](SharedLibrary& lib, Lz4& l) { lib.bind("LZ4_decompress_safe", l.decompress_safe); });
    return loaded;
}

const Vectorscan& libhs() {
    static const Vectorscan loaded = SharedLibrary::open<Vectorscan>(kVectorscan, [](SharedLibrary& lib, Vectorscan& h) {
        lib.bind("hs_valid_platform", h.valid_platform);
        lib.bind("hs_compile_multi", h.compile_multi);
        lib.bind("hs_compile_lit_multi", h.compile_lit_multi);
        lib.bind("hs_free_compile_error", h.free_compile_error);
        lib.bind("hs_free_database", h.free_database);
        lib.bind("hs_alloc_scratch", h.alloc_scratch);
        lib.bind("hs_free_scratch", h.free_scratch);
        lib.bind("hs_scan", h.scan);
    });
    return loaded;
}

}  // namespace cudoctor::formats
