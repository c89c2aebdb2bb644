#include "formats/efivar.hpp"

#include <cstdio>
#include <string>

namespace cudoctor::formats {

Expected<bool> parse_efivar_bool(std::string_view bytes) {
    if (bytes.size() < 5)
        return fail(Errc::truncated,
                    "EFI variable truncated: " + std::to_string(bytes.size()) + " bytes, expected 4 attribute bytes and 1 data byte");
    const auto data = static_cast<unsigned char>(bytes[4]);
    if (data > 1) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", data);
        return fail(Errc::parse, std::string("EFI variable data byte is ") + hex + ", expected 0 or 1");
    }
    return data == 1;
}

}  // namespace cudoctor::formats
