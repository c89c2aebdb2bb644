// Fuzzes every reader of formats/c_header.hpp with the same bytes. The first line, when short,
// is also used as a macro name, so names the fuzzer invents are looked up too.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/c_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)find_define_int(text, "CUDA_VERSION");
    if (const auto nl = text.find('\n'); nl < 64)  // npos is not
        (void)find_define_int(text.substr(nl + 1), text.substr(0, nl));
    if (auto v = parse_cuda_h_version(text); v && v->size() != 2) __builtin_trap();
    if (auto v = parse_cudnn_version_header(text); v && v->size() != 3) __builtin_trap();
    const auto limits = parse_host_config(text);
    if (limits.max_gcc_minor && !limits.max_gcc_major) __builtin_trap();
    return 0;
}
