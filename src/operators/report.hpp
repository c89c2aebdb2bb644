#pragma once
// What `inventory` prints: the operator table and what needs attention, as text, JSON or Markdown.
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "operators/inventory.hpp"

namespace cudoctor::operators {

/// A header line (source, torch, device, counts), one row per operator (calls, operator, kind,
/// the layers that use it: the first few and a count), then "Needs attention" with one line per
/// item, or the line that says nothing does. A failed gate in the trace is said first.
void render_text(const Inventory& inv, std::ostream& out, bool color);

/// The same as two Markdown tables, ready for an issue or a migration plan.
void render_markdown(const Inventory& inv, std::ostream& out);

/// {"source", "torch", "device", "dtype", "module_calls", "operator_calls", "gate": {...},
///  "operators": [{"name", "kind", "count", "layers", "devices"}],
///  "attention": [{"reason", "operator", "layers", "why"}]}: every layer listed.
nlohmann::json to_json(const Inventory& inv);

/// "24 operators, 1 custom, 1 autograd.Function, 0 CPU fallbacks: 2 need attention".
std::string summary_line(const Inventory& inv);

}  // namespace cudoctor::operators
