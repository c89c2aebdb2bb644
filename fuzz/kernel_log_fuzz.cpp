// libFuzzer target: parse_kernel_log on arbitrary bytes; every event must point at a real line
// and keep its texts within their caps.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/kernel_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::size_t lines = 1;
    for (char c : text) lines += c == '\n' ? 1 : 0;
    for (const auto& e : parse_kernel_log(text, 1000)) {
        if (e.line == 0 || e.line > lines) __builtin_trap();
        if (e.message.size() > 300 || e.process.size() > 64 || e.pci.size() > 64) __builtin_trap();
        if ((e.kind == KernelEventKind::xid || e.kind == KernelEventKind::sxid) && (e.code < 0 || e.code > 99999)) __builtin_trap();
        if (e.uptime_s && *e.uptime_s < 0) __builtin_trap();
        (void)to_string(e.kind);
    }
    for (std::size_t cut = 0; cut < size && cut < 256; cut += 17) (void)parse_kernel_line(text.substr(0, cut));
    return 0;
}
