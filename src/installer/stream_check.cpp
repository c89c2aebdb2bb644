#include "installer/stream_check.hpp"

#include <vector>

#include "formats/opened_libraries.hpp"

namespace cudoctor::installer {

using formats::PayloadCompression;

const char* to_string(StreamStatus s) {
    switch (s) {
        case StreamStatus::ok: return "ok";
        case StreamStatus::corrupt: return "corrupt";
        case StreamStatus::ended_early: return "ended-early";
        case StreamStatus::trailing: return "trailing-data";
        case StreamStatus::unchecked: break;
    }
    return "unchecked";
}

namespace {

constexpr std::size_t kOutSize = 128u << 10;

const char* lzma_message(lzma_ret r) {
    switch (r) {
        case LZMA_FORMAT_ERROR: return "not in the xz format";
        case LZMA_OPTIONS_ERROR: return "unsupported xz options";
        case LZMA_DATA_ERROR: return "compressed data is corrupt";
        case LZMA_BUF_ERROR: return "the stream ends too early";
        case LZMA_MEM_ERROR: return "out of memory";
        case LZMA_MEMLIMIT_ERROR: return "needs more memory than allowed";
        default: return "decoder error";
    }
}

}  // namespace

/// One decoder state: which of the three is used depends on the compression.
struct StreamCheckSink::Decoder {
    z_stream z{};
    bool z_open = false;
    lzma_stream x = LZMA_STREAM_INIT;
    bool x_open = false;
    ZSTD_DCtx* zs = nullptr;
    std::size_t zs_last = 1;  // ZSTD_decompressStream's last hint: 0 at a frame's end
    bool ended = false;       // gzip: a member ended and no next one started (yet)
    bool failed = false;
    std::vector<unsigned char> out = std::vector<unsigned char>(kOutSize);

    ~Decoder() {
        if (z_open) formats::libz().inflate_end(&z);
        if (x_open) formats::liblzma().end(&x);
        if (zs) formats::libzstd().free_dctx(zs);
    }
};

StreamCheckSink::StreamCheckSink(PayloadCompression compression, std::uint64_t begin, std::optional<std::uint64_t> end, unsigned threads)
    : RangeSink(begin, end), m_compression(compression), m_begin(begin), m_decoder(std::make_unique<Decoder>()) {
    auto& d = *m_decoder;
    // The decoder's library, opened on the first stream that needs it.
    const std::string* unusable = nullptr;
    switch (compression) {
        case PayloadCompression::gzip:
            if (const auto& z = formats::libz(); !z.error.empty()) unusable = &z.error;
            else d.z_open = z.inflate_init2(&d.z, 15 + 16) == Z_OK;
            break;
        case PayloadCompression::xz: {
            const auto& x = formats::liblzma();
            if (!x.error.empty()) {
                unusable = &x.error;
                break;
            }
            lzma_mt mt{};
            mt.flags = LZMA_CONCATENATED;
            mt.threads = threads ? threads : 1;
            mt.memlimit_threading = 1ull << 30;
            mt.memlimit_stop = UINT64_MAX;
            d.x_open = x.stream_decoder_mt(&d.x, &mt) == LZMA_OK;
            break;
        }
        case PayloadCompression::zstd: {
            const auto& z = formats::libzstd();
            if (!z.error.empty()) {
                unusable = &z.error;
                break;
            }
            d.zs = z.create_dctx();
            if (d.zs) z.dctx_set_parameter(d.zs, ZSTD_d_windowLogMax, 31);
            break;
        }
        default: break;
    }
    const bool ready = d.z_open || d.x_open || d.zs;
    m_result.status = ready ? StreamStatus::ok : StreamStatus::unchecked;
    if (!ready)
        m_result.detail = std::string("no ") + formats::to_string(compression) + " decoder" + (unusable ? " (" + *unusable + ")" : "") +
                          ": stream not checked";
}

StreamCheckSink::~StreamCheckSink() = default;

void StreamCheckSink::on_bytes(std::string_view bytes) {
    auto& d = *m_decoder;
    if (m_result.status != StreamStatus::ok || d.failed) return;
    const auto base = seen();  // range bytes before this chunk
    auto fail_at = [&](StreamStatus s, std::uint64_t used, const std::string& why) {
        d.failed = true;
        m_result.status = s;
        m_result.error_offset = m_begin + base + used;
        m_result.detail = why + " (near byte " + std::to_string(m_result.error_offset) + " of the file)";
    };
    if (d.z_open) {
        const auto& zlib = formats::libz();
        std::size_t pos = 0;
        while (pos < bytes.size()) {
            if (d.ended) {
                // gzip -d accepts another member; anything else after a member is trailing data.
                if (static_cast<unsigned char>(bytes[pos]) != 0x1f) {
                    m_result.status = StreamStatus::trailing;
                    d.failed = true;
                    m_result.detail = "data follows the end of the gzip stream at byte " + std::to_string(m_begin + base + pos);
                    return;
                }
                zlib.inflate_reset(&d.z);
                d.ended = false;
            }
            d.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + pos));
            d.z.avail_in = static_cast<uInt>(std::min<std::size_t>(bytes.size() - pos, 1u << 30));
            const auto before = d.z.avail_in;
            int r;
            do {
                d.z.next_out = d.out.data();
                d.z.avail_out = static_cast<uInt>(d.out.size());
                r = zlib.inflate(&d.z, Z_NO_FLUSH);
                m_result.uncompressed += d.out.size() - d.z.avail_out;
            } while (r == Z_OK && (d.z.avail_in > 0 || d.z.avail_out == 0));
            pos += before - d.z.avail_in;
            m_result.compressed = base + pos;
            if (r == Z_STREAM_END) {
                d.ended = true;
                continue;
            }
            if (r != Z_OK && r != Z_BUF_ERROR) {
                fail_at(StreamStatus::corrupt, pos, std::string("gzip: ") + (d.z.msg ? d.z.msg : "inflate error"));
                return;
            }
        }
        return;
    }
    if (d.x_open) {
        const auto& lzma = formats::liblzma();
        d.x.next_in = reinterpret_cast<const uint8_t*>(bytes.data());
        d.x.avail_in = bytes.size();
        while (d.x.avail_in > 0) {
            d.x.next_out = d.out.data();
            d.x.avail_out = d.out.size();
            const auto r = lzma.code(&d.x, LZMA_RUN);
            m_result.uncompressed += d.out.size() - d.x.avail_out;
            if (r != LZMA_OK && r != LZMA_STREAM_END) {
                fail_at(StreamStatus::corrupt, bytes.size() - d.x.avail_in, std::string("xz: ") + lzma_message(r));
                return;
            }
        }
        m_result.compressed = base + bytes.size();
        return;
    }
    if (d.zs) {
        const auto& zstd = formats::libzstd();
        ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
        bool full = false;
        while (in.pos < in.size || full) {
            ZSTD_outBuffer out{d.out.data(), d.out.size(), 0};
            const auto r = zstd.decompress_stream(d.zs, &out, &in);
            m_result.uncompressed += out.pos;
            if (zstd.is_error(r)) {
                fail_at(StreamStatus::corrupt, in.pos, std::string("zstd: ") + zstd.get_error_name(r));
                return;
            }
            d.zs_last = r;
            full = out.pos == out.size;
        }
        m_result.compressed = base + bytes.size();
    }
}

void StreamCheckSink::on_end(bool complete) {
    auto& d = *m_decoder;
    (void)complete;
    if (m_result.status != StreamStatus::ok || d.failed) return;
    auto early = [&](const std::string& what) {
        m_result.status = StreamStatus::ended_early;
        m_result.error_offset = m_begin + seen();
        m_result.detail = what + " ends before its end marker, after " + std::to_string(seen()) + " bytes";
    };
    if (d.z_open) {
        if (!d.ended) early("the gzip stream");
        return;
    }
    if (d.x_open) {
        while (true) {
            d.x.next_in = nullptr;
            d.x.avail_in = 0;
            d.x.next_out = d.out.data();
            d.x.avail_out = d.out.size();
            const auto r = formats::liblzma().code(&d.x, LZMA_FINISH);
            m_result.uncompressed += d.out.size() - d.x.avail_out;
            if (r == LZMA_STREAM_END) return;
            if (r == LZMA_OK) continue;  // more output pending
            if (r == LZMA_BUF_ERROR) early("the xz stream");
            else {
                m_result.status = StreamStatus::corrupt;
                m_result.error_offset = m_begin + seen();
                m_result.detail = std::string("xz: ") + lzma_message(r) + " at the end of the stream";
            }
            return;
        }
    }
    if (d.zs) {
        if (seen() == 0 || d.zs_last != 0) early("the zstd stream");
    }
}

}  // namespace cudoctor::installer
