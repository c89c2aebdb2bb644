#include "operators/report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "report/style.hpp"

namespace cudoctor::operators {
namespace {

constexpr std::size_t kLayersShown = 4;

std::string safe(std::string_view text) { return report::outside_text(text, report::Medium::terminal); }

/// "3: a, b, c" or "12: a, b, c, d, … (8 more)".
std::string layers_text(const std::vector<std::string>& layers, std::string (*escape)(std::string_view)) {
    std::string s = std::to_string(layers.size()) + ":";
    for (std::size_t i = 0; i < layers.size() && i < kLayersShown; ++i) s += (i ? ", " : " ") + escape(layers[i]);
    if (layers.size() > kLayersShown) s += ", … (" + std::to_string(layers.size() - kLayersShown) + " more)";
    return s;
}

/// "features.3 (user_model.ScaleShift)": where the reader has to look.
std::vector<std::string> typed_layers(const Attention& a) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < a.layers.size(); ++i)
        out.push_back(i < a.types.size() && !a.types[i].empty() ? a.layers[i] + " (" + a.types[i] + ")" : a.layers[i]);
    return out;
}

std::string markdown(std::string_view text) { return report::outside_text(text, report::Medium::markdown); }

std::size_t count_reason(const Inventory& inv, Reason r) {
    return static_cast<std::size_t>(std::count_if(inv.attention.begin(), inv.attention.end(), [r](const auto& a) { return a.reason == r; }));
}

std::string header(const Inventory& inv) {
    return fmt::format("torch {}, device {}{}, {} module calls, {} operator calls, {} operators", inv.torch.empty() ? "?" : inv.torch,
                       inv.device.empty() ? "?" : inv.device, inv.dtype.empty() ? "" : ", dtype " + inv.dtype, inv.module_calls,
                       inv.operator_calls, inv.ops.size());
}

}  // namespace

std::string summary_line(const Inventory& inv) {
    return fmt::format("{} operators, {} custom, {} autograd.Function, {} CPU fallbacks: {} need attention", inv.ops.size(),
                       count_reason(inv, Reason::custom_operator), count_reason(inv, Reason::autograd_function),
                       count_reason(inv, Reason::cpu_fallback), inv.attention.size());
}

void render_text(const Inventory& inv, std::ostream& out, bool color) {
    const report::Painter painter(color);
    out << "Operator inventory of " << safe(inv.source) << "\n" << safe(header(inv)) << "\n";
    if (!inv.gate_passed)
        out << painter.paint(report::Ink::bold_red, "The gate failed:") << " layer " << safe(inv.gate_layer)
            << " put out a NaN or an Inf; this run's operators stop being meaningful there\n";
    out << "\n";
    std::size_t name_w = 8, kind_w = 4;
    for (const auto& op : inv.ops) {
        name_w = std::max(name_w, std::min<std::size_t>(safe(op.name).size(), 48));
        kind_w = std::max(kind_w, std::string_view(formats::to_string(op.kind)).size());
    }
    out << fmt::format("{:>7}  {:<{}}  {:<{}}  {}\n", "calls", "operator", name_w, "kind", kind_w, "layers");
    for (const auto& op : inv.ops)
        out << fmt::format("{:>7}  {:<{}}  {:<{}}  {}\n", op.count, safe(op.name), name_w, formats::to_string(op.kind), kind_w,
                           layers_text(op.layers, safe));
    out << "\n";
    if (inv.attention.empty()) {
        out << "Nothing needs attention: only aten and prim operators"
            << (inv.device.empty() || inv.device.starts_with("cpu") ? " (a CPU run: CPU fallbacks show only in a run on another device)"
                                                                    : ", none on the CPU")
            << "\n";
    } else {
        out << painter.paint(report::Ink::yellow, "Needs attention when moving to another backend") << " (" << inv.attention.size() << "):\n";
        for (const auto& a : inv.attention)
            out << "  " << fmt::format("{:<18}", to_string(a.reason)) << safe(a.op) << " in " << layers_text(typed_layers(a), safe) << "\n"
                << "  " << std::string(18, ' ') << safe(a.why) << "\n";
    }
    out << "\n" << summary_line(inv) << "\n";
}

void render_markdown(const Inventory& inv, std::ostream& out) {
    out << "## Operator inventory of " << report::markdown_code(inv.source) << "\n\n" << markdown(header(inv)) << "\n\n";
    if (!inv.gate_passed) out << "**The gate failed** at layer " << report::markdown_code(inv.gate_layer) << " (a NaN or an Inf).\n\n";
    out << "| calls | operator | kind | layers |\n| ---: | --- | --- | --- |\n";
    for (const auto& op : inv.ops)
        out << "| " << op.count << " | " << report::markdown_code(op.name) << " | " << formats::to_string(op.kind) << " | "
            << layers_text(op.layers, markdown) << " |\n";
    out << "\n### Needs attention when moving to another backend\n\n";
    if (inv.attention.empty()) out << "Nothing: only aten and prim operators.\n";
    else {
        out << "| reason | operator | layers | why |\n| --- | --- | --- | --- |\n";
        for (const auto& a : inv.attention)
            out << "| " << to_string(a.reason) << " | " << report::markdown_code(a.op) << " | " << layers_text(typed_layers(a), markdown)
                << " | " << report::markdown_cell(a.why) << " |\n";
    }
    out << "\n" << summary_line(inv) << "\n";
}

nlohmann::json to_json(const Inventory& inv) {
    nlohmann::json ops = nlohmann::json::array(), attention = nlohmann::json::array();
    for (const auto& op : inv.ops)
        ops.push_back(
            {{"name", op.name}, {"kind", formats::to_string(op.kind)}, {"count", op.count}, {"layers", op.layers}, {"devices", op.devices}});
    for (const auto& a : inv.attention)
        attention.push_back({{"reason", to_string(a.reason)}, {"operator", a.op}, {"layers", a.layers}, {"types", a.types}, {"why", a.why}});
    return {
        {"source", inv.source},
        {"torch", inv.torch},
        {"device", inv.device},
        {"dtype", inv.dtype},
        {"module_calls", inv.module_calls},
        {"operator_calls", inv.operator_calls},
        {"gate", {{"passed", inv.gate_passed}, {"layer", inv.gate_passed ? nlohmann::json(nullptr) : nlohmann::json(inv.gate_layer)}}},
        {"operators", std::move(ops)},
        {"attention", std::move(attention)},
        {"summary", summary_line(inv)},
    };
}

}  // namespace cudoctor::operators
