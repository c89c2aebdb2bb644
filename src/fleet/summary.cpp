#include "fleet/summary.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "common/version.hpp"
#include "rules/rules.hpp"
#include "snapshot/taken_at.hpp"

namespace cudoctor::fleet {
namespace {

void sort_unique(std::vector<std::string>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

std::vector<std::string> os_items(const snapshot::Platform& p) {
    std::string os = !p.os_pretty.empty() ? p.os_pretty : (p.os_id + " " + p.os_version);
    if (os == " ") os.clear();
    if (!p.kernel.empty()) os += (os.empty() ? "" : ", ") + std::string("kernel ") + p.kernel;
    if (os.empty()) return {};
    return {os};
}

std::vector<std::string> gpu_items(const std::vector<snapshot::Gpu>& gpus) {
    std::map<std::string, int> count;
    for (const auto& g : gpus) {
        std::string name = !g.name.empty() ? g.name : (!g.pci_device_id.empty() ? "PCI " + g.pci_device_id : "unknown GPU");
        if (!g.compute_capability.empty()) name += " (sm " + g.compute_capability + ")";
        ++count[name];
    }
    std::vector<std::string> items;
    items.reserve(count.size());
    for (const auto& [name, n] : count) items.push_back(n == 1 ? name : name + " ×" + std::to_string(n));
    return items;
}

std::vector<std::string> driver_items(const snapshot::Driver& d) {
    std::string v = d.kernel_module_version.empty() ? "no kernel module" : d.kernel_module_version;
    if (d.flavour != snapshot::ModuleFlavour::unknown && !d.kernel_module_version.empty())
        v += " " + std::string(snapshot::to_string(d.flavour));
    // A node whose libraries were upgraded without a reboot differs from its peers right here.
    std::vector<std::string> others;
    for (const auto& u : d.user_space_versions)
        if (u != d.kernel_module_version) others.push_back(u);
    if (!others.empty()) {
        sort_unique(others);
        v += " (user space ";
        for (std::size_t i = 0; i < others.size(); ++i) v += (i ? ", " : "") + others[i];
        v += ")";
    }
    if (d.kernel_module_version.empty() && d.user_space_versions.empty() && d.libraries.empty()) return {};
    return {v};
}

std::vector<std::string> toolkit_items(const std::vector<snapshot::Toolkit>& toolkits) {
    std::vector<std::string> items;
    for (const auto& t : toolkits) {
        if (t.version.empty()) continue;
        std::string v = t.version;
        if (t.install_method == snapshot::InstallMethod::pip || t.install_method == snapshot::InstallMethod::conda)
            v += " (" + std::string(snapshot::to_string(t.install_method)) + ")";
        if (t.is_default) v += " (default)";
        items.push_back(std::move(v));
    }
    // Numeric order reads naturally: 11.8 before 12.4 before 12.10.
    std::sort(items.begin(), items.end(), [](const std::string& a, const std::string& b) {
        auto va = Version::parse(a), vb = Version::parse(b);
        if (va && vb && *va != *vb) return *va < *vb;
        return a < b;
    });
    items.erase(std::unique(items.begin(), items.end()), items.end());
    return items;
}

std::vector<std::string> cudnn_items(const std::vector<snapshot::Cudnn>& cudnn) {
    std::vector<std::string> items;
    for (const auto& c : cudnn)
        if (!c.version.empty()) items.push_back(c.location.empty() ? c.version : c.version + " (" + c.location + ")");
    sort_unique(items);
    return items;
}

std::vector<std::string> framework_items(const std::vector<snapshot::Framework>& frameworks) {
    std::vector<std::string> items;
    items.reserve(frameworks.size());
    for (const auto& f : frameworks) items.push_back(f.name + " " + (f.version.empty() ? "?" : f.version));
    sort_unique(items);
    return items;
}

std::string name_of(const std::string& hostname, const std::string& file) {
    if (!hostname.empty()) return hostname;
    std::string stem = std::filesystem::path(file).filename().string();
    if (stem.size() > 5 && stem.ends_with(".json")) stem.resize(stem.size() - 5);
    return stem;
}

}  // namespace

std::string_view to_string(Layer layer) {
    switch (layer) {
        case Layer::os: return "os";
        case Layer::gpus: return "gpus";
        case Layer::driver: return "driver";
        case Layer::toolkits: return "toolkits";
        case Layer::cudnn: return "cudnn";
        case Layer::frameworks: return "frameworks";
    }
    return "?";
}

std::string layer_value(const std::vector<std::string>& items) {
    if (items.empty()) return "none";
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out;
}

NodeSummary summarize(const snapshot::Snapshot& snap, const kb::Kb& kb, std::string file, bool with_metrics) {
    return summarize(snap, rules::evaluate(snap, kb), std::move(file), with_metrics);
}

NodeSummary summarize(const snapshot::Snapshot& snap, const std::vector<snapshot::Finding>& findings, std::string file, bool with_metrics) {
    NodeSummary s;
    s.hostname = snap.hostname;
    s.name = name_of(snap.hostname, file);
    s.file = std::move(file);
    s.taken_at = snap.taken_at;
    s.taken_at_epoch = snapshot::parse_utc(snap.taken_at);
    s.tool_version = snap.tool_version;
    s.layers[static_cast<std::size_t>(Layer::os)] = os_items(snap.platform);
    s.layers[static_cast<std::size_t>(Layer::gpus)] = gpu_items(snap.gpus);
    s.layers[static_cast<std::size_t>(Layer::driver)] = driver_items(snap.driver);
    s.layers[static_cast<std::size_t>(Layer::toolkits)] = toolkit_items(snap.toolkits);
    s.layers[static_cast<std::size_t>(Layer::cudnn)] = cudnn_items(snap.cudnn);
    s.layers[static_cast<std::size_t>(Layer::frameworks)] = framework_items(snap.frameworks);
    s.findings.reserve(findings.size());
    for (const auto& f : findings) s.findings.push_back({f.id, f.severity, f.layer, f.title});
    if (with_metrics) s.metrics = report::machine_metrics(snap, findings);
    return s;
}

}  // namespace cudoctor::fleet
