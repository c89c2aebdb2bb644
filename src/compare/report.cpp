#include "compare/report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "compare/format_number.hpp"
#include "report/style.hpp"

namespace cudoctor::compare {
namespace {

std::string dtype_text(const TensorResult& r) {
    if (r.test_dtype == r.ref_dtype) return std::string(formats::dtype_name(r.ref_dtype));
    return std::string(formats::dtype_name(r.test_dtype)) + "/" + std::string(formats::dtype_name(r.ref_dtype));
}

std::string shape_cell(const TensorResult& r) {
    if (r.test_shape == r.ref_shape) return formats::shape_text(r.ref_shape);
    return formats::shape_text(r.test_shape) + "/" + formats::shape_text(r.ref_shape);
}

std::string index_text(const std::vector<std::uint64_t>& index) {
    std::string s = "[";
    for (std::size_t i = 0; i < index.size(); ++i) s += (i ? "," : "") + std::to_string(index[i]);
    return s + "]";
}

std::string value_text(double v) {
    if (!std::isfinite(v)) return format_number(v);
    return fmt::format("{:.6g}", v);
}

/// Tensor names and paths come from the dump files: the one escape for the terminal.
std::string safe(std::string_view text) { return report::outside_text(text, report::Medium::terminal); }

/// Long module names keep their informative end: "...layers.11.mlp.fc2".
std::string fit(const std::string& s, std::size_t width) {
    if (s.size() <= width) return s;
    return "..." + s.substr(s.size() - (width - 3));
}

nlohmann::json number(double v) {
    if (std::isfinite(v)) return v;
    return format_number(v);
}

nlohmann::json element_json(const ElementAt& e, const std::vector<std::uint64_t>& shape) {
    return {{"index", unravel(e.index, shape)}, {"flat_index", e.index}, {"test", number(e.test)}, {"ref", number(e.ref)}};
}

/// "torch.nn.modules.linear.Linear" → "Linear": the class is what a reader knows.
std::string short_type(std::string_view type) {
    const auto dot = type.rfind('.');
    return std::string(dot == std::string_view::npos ? type : type.substr(dot + 1));
}

std::string ms_text(double ms) { return fmt::format("{:.4g}", ms); }

std::string ratio_text(double r) { return std::isfinite(r) ? fmt::format("{:.2f}×", r) : std::string("inf"); }

void render_speed(const Comparison& c, std::ostream& out, const report::Painter& painter) {
    const Speed& sp = c.speed;
    if (!sp.traced) return;  // dumps of other tools: nothing to say about speed
    if (!sp.available) {
        out << "\nSpeed: no per-layer times (" << sp.missing << "; tools/record_layers.py records them)\n";
    } else {
        out << "\nSpeed: median time per call, a layer's children included (REF " << sp.ref_clock << ", " << sp.ref_repeat << " runs; TEST "
            << sp.test_clock << ", " << sp.test_repeat << " runs)\n";
        std::size_t name_w = 5, type_w = 4;
        for (const auto& l : sp.layers) {
            name_w = std::max(name_w, std::min<std::size_t>(fit(safe(l.name), 48).size(), 48));
            type_w = std::max(type_w, std::min<std::size_t>(safe(short_type(l.type)).size(), 28));
        }
        const std::size_t num_w = std::to_string(sp.layers.size()).size() + 1;
        out << fmt::format("{:>{}}  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>9}\n", "#", num_w, "layer", name_w, "type", type_w, "REF ms",
                           "TEST ms", "TEST/REF");
        for (std::size_t i = 0; i < sp.layers.size(); ++i) {
            const auto& l = sp.layers[i];
            std::string row =
                fmt::format("{:>{}}  {:<{}}  {:<{}}  {:>10}  {:>10}  {:>9}", i + 1, num_w, fit(safe(l.name), 48), name_w,
                            fit(safe(short_type(l.type)), 28), type_w, ms_text(l.ref_ms), ms_text(l.test_ms), ratio_text(l.ratio()));
            if (l.slower) row += "  " + painter.paint(report::Ink::red, "<- slower");
            out << row << "\n";
        }
        if (sp.total)
            out << "\nTotal (the whole forward pass): REF " << ms_text(sp.total->ref_ms) << " ms, TEST " << ms_text(sp.total->test_ms)
                << " ms, " << ratio_text(sp.total->ratio()) << "\n";
        const std::size_t slower = sp.slower_count();
        out << (sp.total ? "" : "\n") << "Slower than " << ratio_text(sp.threshold) << ": ";
        if (!slower) out << "none";
        else {
            out << slower << (slower == 1 ? " layer:" : " layers:");
            std::size_t shown = 0;
            for (const auto& l : sp.layers)
                if (l.slower && shown++ < 20) out << " " << safe(l.name) << " (" << ratio_text(l.ratio()) << ")";
            if (slower > 20) out << " … (" << slower - 20 << " more)";
        }
        out << "\n";
    }
    for (const auto& o : sp.off_device)
        out << painter.paint(report::Ink::yellow, "Another device:") << " " << o.side << " " << safe(o.layer) << " ran on "
            << safe(o.devices) << " (the rest of " << o.side << " on " << safe(o.usual) << ")\n";
}

}  // namespace

void render_text(const Comparison& c, std::ostream& out, bool color) {
    const report::Painter painter(color);
    out << "REF   " << safe(c.ref_path) << " (" << c.ref_format << ")\n";
    out << "TEST  " << safe(c.test_path) << " (" << c.test_format << ")\n\n";

    std::size_t name_w = 4, dtype_w = 5, shape_w = 5;
    for (const auto& r : c.results) {
        name_w = std::max(name_w, std::min<std::size_t>(fit(safe(r.name), 48).size(), 48));
        dtype_w = std::max(dtype_w, dtype_text(r).size());
        shape_w = std::max(shape_w, shape_cell(r).size());
    }
    const std::size_t num_w = std::to_string(c.results.size()).size() + 1;
    out << fmt::format("{:>{}}  {:<{}}  {:<{}}  {:<{}}  {:>9}  {:>9}  {:>9}  {:>9}  {}\n", "#", num_w, "name", name_w, "dtype", dtype_w,
                       "shape", shape_w, "max abs", "rel", "max rel", "mean abs", "result   worst element (TEST vs REF)");
    for (std::size_t i = 0; i < c.results.size(); ++i) {
        const auto& r = c.results[i];
        const Metrics& m = r.metrics;
        std::string row = fmt::format("{:>{}}  {:<{}}  {:<{}}  {:<{}}  ", i + 1, num_w, fit(safe(r.name), 48), name_w, dtype_text(r),
                                      dtype_w, shape_cell(r), shape_w);
        if (r.compared)
            row += fmt::format("{:>9}  {:>9}  {:>9}  {:>9}  ", format_number(m.max_abs), format_number(m.rel), format_number(m.max_rel),
                               format_number(m.mean_abs));
        else row += fmt::format("{:>9}  {:>9}  {:>9}  {:>9}  ", "-", "-", "-", "-");
        const std::string status = to_string(r.status);
        const bool first = c.first_failure && *c.first_failure == i;
        row += r.status == Status::fail   ? painter.paint(first ? report::Ink::bold_red : report::Ink::red, status)
               : r.status == Status::pass ? painter.paint(report::Ink::green, status)
                                          : status;
        if (r.compared && m.numel > 0 && m.max_abs > 0)
            row += fmt::format("     {} {} vs {}", index_text(unravel(m.worst.index, r.ref_shape)), value_text(m.worst.test),
                               value_text(m.worst.ref));
        if (m.nan_test || m.nan_ref || m.inf_test || m.inf_ref)
            row += fmt::format("  NaN {}/{} Inf {}/{}", m.nan_test, m.nan_ref, m.inf_test, m.inf_ref);
        if (first) row += "  " + painter.paint(report::Ink::bold_red, "<- first failure");
        out << row << "\n";
        for (const auto& f : r.findings) out << std::string(num_w + 4, ' ') << safe(f) << "\n";
    }
    const auto list = [&out](const char* what, const std::vector<std::string>& names) {
        if (names.empty()) return;
        out << "\n" << what << " (" << names.size() << "):";
        for (std::size_t i = 0; i < names.size() && i < 20; ++i) out << " " << safe(names[i]);
        if (names.size() > 20) out << " … (" << names.size() - 20 << " more)";
        out << "\n";
    };
    list("Only in REF", c.only_ref);
    list("Only in TEST", c.only_test);
    render_speed(c, out, painter);
    for (std::size_t i = 0; i < c.trace_problems.size(); ++i)
        out << (i ? "" : "\n") << "Layer trace not read: " << safe(c.trace_problems[i]) << "\n";
    // Which line each tensor was held to, and why where it was not its own type's: the notes
    // (a dtype difference, a bf16 run saved as F32) and the tolerances, each once with a count.
    std::vector<std::pair<std::string, std::size_t>> lines;
    const auto count_line = [&lines](std::string text) {
        for (auto& [t, n] : lines)
            if (t == text) return void(++n);
        lines.emplace_back(std::move(text), 1);
    };
    for (const auto& r : c.results) {
        for (const auto& note : r.notes) count_line(safe(note));
        const Tolerance& t = r.tolerance;
        if (t.skip) continue;
        count_line(t.exact ? std::string("tolerance: exact")
                           : "tolerance: rtol " + format_number(t.rtol) + ", atol " + format_number(t.atol) + ", layer limit " +
                                 format_number(t.rel));
    }
    if (!lines.empty()) out << "\n";
    for (const auto& [text, n] : lines) out << text << " (" << n << (n == 1 ? " tensor)\n" : " tensors)\n");
    out << "\n" << c.results.size() << " tensors compared: " << c.count(Status::pass) << " pass, " << c.count(Status::fail) << " fail";
    if (const auto skipped = c.count(Status::skipped)) out << ", " << skipped << " skipped";
    if (c.first_failure) out << "; first failure: #" << *c.first_failure + 1 << " " << safe(c.results[*c.first_failure].name);
    if (c.strict && (!c.only_ref.empty() || !c.only_test.empty()))
        out << "; --strict: " << c.only_ref.size() + c.only_test.size() << " in only one dump";
    if (c.speed.available) out << "; " << c.speed.slower_count() << " layers slower than " << ratio_text(c.speed.threshold);
    out << "\n";
}

namespace {

nlohmann::json speed_json(const Speed& sp) {
    const auto layer = [](const LayerSpeed& l) {
        return nlohmann::json{{"name", l.name},       {"test_name", l.test_name},   {"type", l.type},    {"ref_ms", l.ref_ms},
                              {"test_ms", l.test_ms}, {"ratio", number(l.ratio())}, {"slower", l.slower}};
    };
    nlohmann::json off = nlohmann::json::array();
    for (const auto& o : sp.off_device) off.push_back({{"side", o.side}, {"layer", o.layer}, {"devices", o.devices}, {"usual", o.usual}});
    nlohmann::json j = {{"available", sp.available}, {"threshold", sp.threshold}, {"off_device", std::move(off)}};
    if (!sp.available) {
        j["missing"] = sp.missing;
        return j;
    }
    nlohmann::json layers = nlohmann::json::array(), slower = nlohmann::json::array();
    for (const auto& l : sp.layers) {
        layers.push_back(layer(l));
        if (l.slower) slower.push_back(l.name);
    }
    j["ref"] = {{"clock", sp.ref_clock}, {"repeat", sp.ref_repeat}};
    j["test"] = {{"clock", sp.test_clock}, {"repeat", sp.test_repeat}};
    j["layers"] = std::move(layers);
    j["slower"] = std::move(slower);
    j["total"] = sp.total ? layer(*sp.total) : nlohmann::json(nullptr);
    return j;
}

}  // namespace

nlohmann::json to_json(const Comparison& c) {
    nlohmann::json tensors = nlohmann::json::array();
    for (const auto& r : c.results) {
        const Metrics& m = r.metrics;
        nlohmann::json t = {
            {"name", r.name},
            {"test_name", r.test_name},
            {"status", to_string(r.status)},
            {"ref", {{"dtype", formats::dtype_name(r.ref_dtype)}, {"shape", r.ref_shape}}},
            {"test", {{"dtype", formats::dtype_name(r.test_dtype)}, {"shape", r.test_shape}}},
            {"tolerance", {{"rtol", r.tolerance.rtol}, {"atol", r.tolerance.atol}, {"rel", r.tolerance.rel}, {"exact", r.tolerance.exact}}},
            {"findings", r.findings},
            {"notes", r.notes},
            {"compared", r.compared},
        };
        if (r.compared) {
            t["numel"] = m.numel;
            t["max_abs"] = number(m.max_abs);
            t["rel"] = number(m.rel);
            t["max_rel"] = number(m.max_rel);
            t["mean_abs"] = number(m.mean_abs);
            t["mismatched"] = m.mismatched;
            t["worst"] = element_json(m.worst, r.ref_shape);
            t["worst_rel"] = element_json(m.worst_rel, r.ref_shape);
            t["ref"]["nan"] = m.nan_ref;
            t["ref"]["inf"] = m.inf_ref;
            t["test"]["nan"] = m.nan_test;
            t["test"]["inf"] = m.inf_test;
        }
        tensors.push_back(std::move(t));
    }
    return {
        {"ref", {{"path", c.ref_path}, {"format", c.ref_format}}},
        {"test", {{"path", c.test_path}, {"format", c.test_format}}},
        {"tensors", std::move(tensors)},
        {"only_in_ref", c.only_ref},
        {"only_in_test", c.only_test},
        {"first_failure", c.first_failure ? nlohmann::json(c.results[*c.first_failure].name) : nlohmann::json(nullptr)},
        {"speed", speed_json(c.speed)},
        {"layer_trace_problems", c.trace_problems},
        {"summary",
         {{"compared", c.results.size()},
          {"pass", c.count(Status::pass)},
          {"fail", c.count(Status::fail)},
          {"skipped", c.count(Status::skipped)},
          {"strict", c.strict},
          {"failed", c.failed()}}},
    };
}

}  // namespace cudoctor::compare
