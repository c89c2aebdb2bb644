// libFuzzer target: the first 4 bytes choose vendor and device, the rest is pci.ids text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/pci_ids.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudoctor::formats;
    if (size < 4) return 0;
    const auto vendor = static_cast<std::uint16_t>(data[0] << 8 | data[1]);
    const auto device = static_cast<std::uint16_t>(data[2] << 8 | data[3]);
    const std::string_view text(reinterpret_cast<const char*>(data) + 4, size - 4);
    const auto name = pci_ids_device_name(text, vendor, device);
    const auto vendor_name = pci_ids_vendor_name(text, vendor);
    if (name && name->size() > text.size()) __builtin_trap();
    if ((name && name->empty()) || (vendor_name && vendor_name->empty())) __builtin_trap();
    return 0;
}
