#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

/// The PCI ID database text (hwdata / pciutils "pci.ids").
namespace cudoctor::formats {

/// Looks up a device name in pci.ids text: vendor lines "10de  NVIDIA Corporation", device lines
/// one TAB "\t2803  AD106 [GeForce RTX 4060 Ti]", subsystem lines two TABs, comments '#', LF or
/// CRLF. Hex digits match in either case. Scans to the vendor's line and reads only its block.
/// Returns the device line's name (trimmed), or nullopt when the vendor or the device is absent,
/// the name is empty, or the text is not pci.ids at all.
std::optional<std::string> pci_ids_device_name(std::string_view pci_ids, std::uint16_t vendor, std::uint16_t device);

/// The vendor line's name ("NVIDIA Corporation"), or nullopt, under the same rules.
std::optional<std::string> pci_ids_vendor_name(std::string_view pci_ids, std::uint16_t vendor);

}  // namespace cudoctor::formats
