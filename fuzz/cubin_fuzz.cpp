// libFuzzer target: the cubin reader and what feeds it. The first byte picks the reader, the next
// four give a fatbin header's uncompressed size (capped at 1 MiB here), the rest is the input:
//   0: cubin_kernels and host_stub_kernels on the bytes (a cubin, a host object)
//   1: ptx_entries on the bytes (PTX text)
//   2, 3: decompress_entry as LZ4 / zstd, then cubin_kernels and ptx_entries on what came out.
// Invariants: every error has a message; names are never empty; a decompression gives exactly
// the size asked for, never more than the cap.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "formats/cubin.hpp"
#include "formats/fatbin_payload.hpp"

namespace {

constexpr std::uint64_t kCap = 1 << 20;

void check(const cudoctor::Expected<std::vector<std::string>>& names) {
    if (!names) {
        if (names.error().message.empty()) __builtin_trap();
        return;
    }
    for (const auto& n : *names)
        if (n.empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    if (size < 5) return 0;
    std::uint32_t uncompressed = 0;
    std::memcpy(&uncompressed, data + 1, 4);
    const std::string_view bytes(reinterpret_cast<const char*>(data) + 5, size - 5);
    switch (data[0] % 4) {
        case 0:
            check(cubin_kernels(bytes));
            check(host_stub_kernels(bytes));
            break;
        case 1: check(ptx_entries(bytes)); break;
        default: {
            FatbinEntry e;
            e.kind = FatbinKind::sass;
            e.compression = data[0] % 4 == 2 ? FatbinCompression::lz4 : FatbinCompression::zstd;
            e.uncompressed_size = uncompressed;
            e.compressed_size = static_cast<std::uint32_t>(bytes.size());
            std::string out;
            const auto n = decompress_entry(bytes, e, out, kCap);
            if (!n) {
                if (n.error().message.empty()) __builtin_trap();
                break;
            }
            if (*n != uncompressed || out.size() != uncompressed || *n > kCap) __builtin_trap();
            check(cubin_kernels(out));
            check(ptx_entries(out));
        }
    }
    return 0;
}
