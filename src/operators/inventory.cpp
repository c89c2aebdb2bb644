#include "operators/inventory.hpp"

#include <algorithm>
#include <map>

namespace cudoctor::operators {

const char* to_string(Reason r) {
    switch (r) {
        case Reason::custom_operator: return "custom operator";
        case Reason::autograd_function: return "autograd.Function";
        case Reason::cpu_fallback: return "CPU fallback";
    }
    return "?";
}

std::string run_device(const formats::LayerTrace& trace) {
    if (!trace.device.empty()) return trace.device;
    std::map<std::string, std::size_t> seen;
    for (const auto& l : trace.layers)
        for (const auto& d : l.devices) ++seen[d];
    std::string best;
    std::size_t most = 0;
    for (const auto& [d, n] : seen)
        if (n > most) best = d, most = n;
    return best;
}

namespace {

void add_unique(std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

std::string namespace_of(const std::string& op) {
    const auto colons = op.find("::");
    return colons == std::string::npos ? op : op.substr(0, colons);
}

}  // namespace

Inventory build_inventory(const formats::LayerTrace& trace, std::string source) {
    Inventory inv;
    inv.source = std::move(source);
    inv.torch = trace.torch;
    inv.device = run_device(trace);
    inv.dtype = trace.dtype;
    inv.module_calls = trace.layers.size();
    inv.gate_passed = trace.gate_passed;
    inv.gate_layer = trace.gate_layer;
    // "cuda:0", "mps", "xla:0": any device but the CPU makes a CPU tensor a fallback.
    const bool off_cpu = !inv.device.empty() && !inv.device.starts_with("cpu");

    std::map<std::string, std::size_t> index;                // name -> position in inv.ops
    std::map<std::string, std::vector<std::string>> on_cpu;  // op -> layers where it ran on the CPU
    for (const auto& layer : trace.layers) {
        for (const auto& use : layer.ops) {
            auto [it, added] = index.emplace(use.name, inv.ops.size());
            if (added) {
                OperatorUse fresh;
                fresh.name = use.name;
                fresh.kind = use.kind;
                inv.ops.push_back(std::move(fresh));
            }
            OperatorUse& op = inv.ops[it->second];
            op.count += use.count;
            inv.operator_calls += use.count;
            add_unique(op.layers, layer.name);
            for (const auto& d : use.devices) add_unique(op.devices, d);
            if (off_cpu && std::find(use.devices.begin(), use.devices.end(), "cpu") != use.devices.end())
                add_unique(on_cpu[use.name], layer.name);
        }
    }
    for (auto& op : inv.ops) std::sort(op.devices.begin(), op.devices.end());

    for (const auto& op : inv.ops) {
        if (op.kind == formats::OpKind::custom)
            inv.attention.push_back({Reason::custom_operator,
                                     op.name,
                                     op.layers,
                                     {},
                                     "an operator of namespace '" + namespace_of(op.name) +
                                         "', not PyTorch's: the new backend needs its own kernel for it (or a decomposition)"});
        else if (op.kind == formats::OpKind::autograd_function)
            inv.attention.push_back({Reason::autograd_function,
                                     op.name,
                                     op.layers,
                                     {},
                                     "a Python torch.autograd.Function: hand-written forward and backward, which compilers and "
                                     "exporters may not trace; check it runs and differentiates on the new backend"});
    }
    for (const auto& op : inv.ops)
        if (const auto it = on_cpu.find(op.name); it != on_cpu.end())
            inv.attention.push_back(
                {Reason::cpu_fallback,
                 op.name,
                 it->second,
                 {},
                 "ran on the CPU in a run on " + inv.device + ": a fallback (or an explicit .cpu()), and a copy each way"});

    for (auto& a : inv.attention)
        for (const auto& name : a.layers) {
            const auto* layer = trace.find(name);
            a.types.push_back(layer ? layer->type : std::string());
        }

    std::stable_sort(inv.ops.begin(), inv.ops.end(),
                     [](const OperatorUse& a, const OperatorUse& b) { return a.count != b.count ? a.count > b.count : a.name < b.name; });
    return inv;
}

}  // namespace cudoctor::operators
