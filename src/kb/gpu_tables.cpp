// gpus.tsv, gpu_chips.tsv and driver_kernel_modules.tsv: what a PCI device is.
#include <algorithm>
#include <charconv>

#include "common/text.hpp"
#include "kb/kb_data.hpp"

namespace cudoctor::kb {

namespace {

std::optional<std::uint16_t> parse_hex16(std::string_view s) {
    unsigned value = 0;
    if (s.size() != 4) return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 16);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return static_cast<std::uint16_t>(value);
}

}  // namespace

namespace detail {

Expected<void> read_gpus(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"pci_id", "name", "architecture", "chip", "compute_capability", "category", "in_debian12_pciids",
                                         "nvidia_driver_names", "confidence", "note"});
        !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        GpuModel g;
        if (const std::string id = r.text("pci_id"); !id.empty()) {
            const auto colon = id.find(':');
            const auto vendor = colon == std::string::npos ? std::nullopt : parse_hex16(id.substr(0, colon));
            const auto device = colon == std::string::npos ? std::nullopt : parse_hex16(id.substr(colon + 1));
            if (!vendor || !device) return r.error("pci_id", "'" + text::printable(id) + "' is not vvvv:dddd");
            g.pci_id = {*vendor, *device};
        }
        g.info.name = r.text("name");
        if (g.info.name.empty()) return r.error("name", "empty");
        g.info.architecture = r.text("architecture");
        g.info.chip = r.text("chip");
        CUDOCTOR_KB_TRY(g.info.compute_capability, r.compute_capability("compute_capability"));
        g.category = r.text("category");
        std::optional<bool> in_debian;
        CUDOCTOR_KB_TRY(in_debian, r.optional_yes_no("in_debian12_pciids"));
        g.in_debian12_pciids = in_debian.value_or(false);
        const std::string names = r.text("nvidia_driver_names");
        for (const auto name : text::split(names, ';')) {
            if (!text::trim(name).empty()) g.driver_names.emplace_back(text::trim(name));
        }
        g.confidence = r.text("confidence");
        g.note = r.text("note");
        data.gpus.push_back(std::move(g));
    }
    return {};
}

Expected<void> read_gpu_chips(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"chip_prefix", "architecture", "compute_capability", "examples", "confidence", "note"}); !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        GpuChip c;
        c.prefix = r.text("chip_prefix");
        if (c.prefix.empty()) return r.error("chip_prefix", "empty");
        c.architecture = r.text("architecture");
        CUDOCTOR_KB_TRY(c.compute_capability, r.compute_capability("compute_capability"));
        if (c.compute_capability.empty()) return r.error("compute_capability", "empty");
        c.examples = r.text("examples");
        c.confidence = r.text("confidence");
        c.note = r.text("note");
        data.gpu_chips.push_back(std::move(c));
    }
    return {};
}

Expected<void> read_kernel_modules(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"architecture", "open_module", "proprietary_module", "driver_branch", "note"}); !ok) return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        KernelModules k;
        k.architecture = r.text("architecture");
        std::optional<bool> open, proprietary;
        CUDOCTOR_KB_TRY(open, r.optional_yes_no("open_module"));
        CUDOCTOR_KB_TRY(proprietary, r.optional_yes_no("proprietary_module"));
        if (!open) return r.error("open_module", "empty");
        if (!proprietary) return r.error("proprietary_module", "empty");
        k.open = *open;
        k.proprietary = *proprietary;
        CUDOCTOR_KB_TRY(k.driver_branch, r.optional_int("driver_branch"));
        k.note = r.text("note");
        data.kernel_modules.push_back(std::move(k));
    }
    return {};
}

}  // namespace detail

std::optional<GpuInfo> Kb::gpu_by_pci_id(std::uint16_t vendor, std::uint16_t device) const {
    for (const auto& g : gpus()) {
        if (g.pci_id && g.pci_id->first == vendor && g.pci_id->second == device) return g.info;
    }
    return std::nullopt;
}

std::optional<GpuChip> Kb::gpu_chip(std::string_view chip) const {
    const std::string upper = [&] {
        std::string s(chip);
        for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
        return s;
    }();
    const GpuChip* best = nullptr;
    for (const auto& c : gpu_chips()) {
        if (text::starts_with(upper, c.prefix) && (!best || c.prefix.size() > best->prefix.size())) best = &c;
    }
    if (!best) return std::nullopt;
    return *best;
}

std::optional<GpuInfo> Kb::gpu_from_pci_ids_name(std::string_view pci_ids_name) const {
    const std::string_view name = text::trim(pci_ids_name);
    const auto chip_end = std::min(name.find(' '), name.find('['));
    const std::string_view chip = name.substr(0, chip_end);
    if (chip.empty()) return std::nullopt;
    const auto known = gpu_chip(chip);
    if (!known) return std::nullopt;
    GpuInfo info;
    info.chip = std::string(chip);
    info.architecture = known->architecture;
    info.compute_capability = known->compute_capability;
    const std::string_view rest = chip_end == std::string_view::npos ? std::string_view() : name.substr(chip_end);
    const auto open = rest.find('[');
    const auto close = rest.rfind(']');
    if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
        info.name = std::string(text::trim(rest.substr(open + 1, close - open - 1)));
    } else {
        info.name = std::string(text::trim(rest));
    }
    return info;
}

std::optional<KernelModules> Kb::kernel_modules_for(std::string_view architecture) const {
    for (const auto& k : kernel_module_table()) {
        if (k.architecture == architecture) return k;
    }
    return std::nullopt;
}

std::optional<int> Kb::newest_driver_branch() const {
    std::optional<int> newest;
    for (const auto& k : kernel_module_table())
        if (k.driver_branch && (!newest || *k.driver_branch > *newest)) newest = k.driver_branch;
    return newest;
}

}  // namespace cudoctor::kb
