// GPU probe: NVIDIA display / 3D controllers on the PCI bus, read from sysfs so they are found
// even with no driver. Names come from the KB's GPU table, then from pci.ids (whose chip names
// map to an architecture through the KB's chip table).
#include <fmt/format.h>

#include "common/text.hpp"
#include "formats/pci_ids.hpp"
#include "formats/sysfs.hpp"
#include "probe/context.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kGpuProbe = "gpu";
constexpr std::uint32_t kNvidia = 0x10de;
constexpr std::string_view kPciDevices = "/sys/bus/pci/devices";

class PciIdsFile {
  public:
    explicit PciIdsFile(Context& ctx) : m_ctx(ctx) {}
    /// The file is 1.3 MB: read it only when a device is not in the KB, and only once.
    const std::optional<std::string>& text(std::string& path_out) {
        if (!m_loaded) {
            m_loaded = true;
            for (const char* p : {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids"}) {
                if ((m_text = m_ctx.read(kGpuProbe, p, 64u << 20))) {
                    m_path = p;
                    break;
                }
            }
        }
        path_out = m_path;
        return m_text;
    }

  private:
    Context& m_ctx;
    bool m_loaded = false;
    std::optional<std::string> m_text;
    std::string m_path;
};

std::optional<std::uint32_t> read_hex(Context& ctx, const std::string& dir, const char* file) {
    auto data = ctx.read(kGpuProbe, host::join(dir, file), 4096);
    if (!data) return std::nullopt;
    auto value = formats::parse_sysfs_hex(*data);
    if (!value) ctx.note(kGpuProbe, host::join(dir, file), "not a sysfs hex value: " + text::printable(*data, 40));
    return value;
}

bool is_gpu_class(std::uint32_t cls) {
    const std::uint32_t base_sub = cls >> 8;
    return base_sub == 0x0300 || base_sub == 0x0302 || base_sub == 0x0380;  // VGA, 3D, other display
}

}  // namespace

void probe_gpus(Context& ctx) {
    auto devices = ctx.host.list_dir(kPciDevices);
    if (!devices) {
        if (devices.error().code != Errc::not_found) ctx.note(kGpuProbe, kPciDevices, devices.error().message);
        return;
    }
    PciIdsFile pci_ids(ctx);
    for (const auto& bus_id : *devices) {
        const std::string dir = host::join(kPciDevices, bus_id);
        auto vendor = read_hex(ctx, dir, "vendor");
        if (!vendor || *vendor != kNvidia) continue;
        auto cls = read_hex(ctx, dir, "class");
        if (!cls || !is_gpu_class(*cls)) continue;
        auto device = read_hex(ctx, dir, "device");
        if (!device) continue;

        snapshot::Gpu gpu;
        gpu.bus_id = bus_id;
        gpu.pci_device_id = fmt::format("{:04x}:{:04x}", *vendor, *device);
        gpu.pci_class = fmt::format("0x{:06x}", *cls);
        auto sv = read_hex(ctx, dir, "subsystem_vendor");
        auto sd = read_hex(ctx, dir, "subsystem_device");
        if (sv && sd) gpu.subsystem_id = fmt::format("{:04x}:{:04x}", *sv, *sd);
        if (auto link = ctx.host.read_link(host::join(dir, "driver"))) gpu.bound_driver = host::basename(*link);
        gpu.evidence.push_back({dir, "vendor 0x10de device " + fmt::format("0x{:04x}", *device) + " class " + gpu.pci_class});

        if (auto info = ctx.kb.gpu_by_pci_id(static_cast<std::uint16_t>(*vendor), static_cast<std::uint16_t>(*device))) {
            gpu.name = info->name;
            gpu.chip = info->chip;
            gpu.architecture = info->architecture;
            gpu.compute_capability = info->compute_capability;
            gpu.name_source = "kb";
        } else {
            std::string ids_path;
            if (const auto& ids = pci_ids.text(ids_path)) {
                if (auto name = formats::pci_ids_device_name(*ids, static_cast<std::uint16_t>(*vendor), static_cast<std::uint16_t>(*device))) {
                    gpu.name_source = "pci.ids";
                    gpu.evidence.push_back({ids_path, *name});
                    if (auto info = ctx.kb.gpu_from_pci_ids_name(*name)) {
                        gpu.name = info->name;
                        gpu.chip = info->chip;
                        gpu.architecture = info->architecture;
                        gpu.compute_capability = info->compute_capability;
                    } else {
                        gpu.name = *name;
                    }
                }
            }
        }
        ctx.snap.gpus.push_back(std::move(gpu));
    }
}

}  // namespace cudoctor::probe
