#include <cstdint>
#include <string_view>

#include "formats/shell_rc.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    int last = 0;
    for (const auto& a : cudoctor::formats::parse_shell_rc(text, "/home/dev")) {
        if (a.line <= last || a.name.empty()) __builtin_trap();  // lines in order, each names a variable
        last = a.line;
        for (const auto& e : cudoctor::formats::path_entries(a.value, a.name))
            if (!e.old_value && e.dir.empty()) __builtin_trap();  // empty entries are dropped
    }
    return 0;
}
