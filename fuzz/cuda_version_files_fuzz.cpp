// Fuzzes every reader of formats/cuda_version_files.hpp with the same bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/cuda_version_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)parse_cuda_version_json(text);
    if (auto v = parse_cuda_version_txt(text); v && v->size() < 2) __builtin_trap();
    if (auto v = parse_nvcc_version_output(text); v && v->size() < 2) __builtin_trap();
    return 0;
}
