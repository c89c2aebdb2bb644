// libFuzzer target: both /proc parsers (driver version and module list) on the same bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/nvidia_proc.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::size_t total = 0;
    if (const auto v = parse_nvidia_proc_version(text)) total += v->version.size() + v->compiler.size();
    if (const auto modules = parse_proc_modules(text)) {
        for (const auto& m : *modules) {
            total += m.name.size() + m.state.size() + m.taints.size() + m.deps.size();
            if (m.name.empty()) __builtin_trap();
        }
    }
    if (total > 2 * size + 1) __builtin_trap();  // an invariant broke
    return 0;
}
