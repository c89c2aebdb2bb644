// libFuzzer target: read_installer_name on an arbitrary file name, makeself label and version
// string (the input split at its first two NUL bytes), and official_url on the result. Every
// version it reads is digits and dots; every URL is NVIDIA's and ends with the file name.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/installer_name.hpp"

namespace {

bool digits_and_dots(std::string_view s) {
    for (char c : s)
        if (!(c == '.' || (c >= '0' && c <= '9'))) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    std::string_view parts[3];
    for (auto& part : parts) {
        const auto nul = rest.find('\0');
        part = rest.substr(0, nul);
        rest = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
    }
    const auto name = read_installer_name(parts[0], parts[1], parts[2]);
    if (!digits_and_dots(name.cuda) || !digits_and_dots(name.driver) || !digits_and_dots(name.cudnn)) __builtin_trap();
    const auto url = official_url(parts[0], name);
    if (!url.empty() && !(url.starts_with("https://developer.download.nvidia.com/") || url.starts_with("https://download.nvidia.com/")))
        __builtin_trap();
    return 0;
}
