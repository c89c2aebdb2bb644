// libFuzzer target: parse_elf on arbitrary bytes, then what `arch` does with a parsed file: the
// bytes of every section, the registered fatbin sections walked, the others searched.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/elf.hpp"
#include "formats/fatbin.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto elf = parse_elf(bytes);
    if (!elf) {
        if (elf.error().message.empty()) __builtin_trap();  // every error says what is wrong
        return 0;
    }
    if (elf_kind(*elf).empty()) __builtin_trap();
    for (const auto& s : elf->sections) {
        const auto section = section_bytes(bytes, s);
        if (!section) {
            if (section.error().message.empty()) __builtin_trap();
            continue;
        }
        if (section->size() > bytes.size()) __builtin_trap();  // a section is always inside the file
        if (s.name == ".nv_fatbin" || s.name == "__nv_relfatbin") {
            const auto walk = walk_fatbin_section(*section, s.offset);
            for (const auto& c : walk.containers)
                if (c.offset < s.offset || c.offset + c.size > s.offset + s.size) __builtin_trap();
        } else {
            for (const auto& c : find_embedded_fatbins(*section, s.offset))
                if (c.entries.empty() || c.offset + c.size > s.offset + s.size) __builtin_trap();
        }
    }
    return 0;
}
