#include "report/prometheus.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "report/report.hpp"
#include "report/style.hpp"
#include "snapshot/taken_at.hpp"

namespace cudoctor::report {
namespace {

// HELP text escapes only the backslash and the line break (the format's rule for HELP).
std::string help_text(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

std::size_t severity_index(snapshot::Severity s) { return static_cast<std::size_t>(s); }

// The index of `family` in metric::kInfoFamilies (a compile-time lookup by name).
constexpr std::size_t info_index(const MetricFamily& family) {
    for (std::size_t i = 0; i < metric::kInfoFamilies.size(); ++i)
        if (metric::kInfoFamilies[i].name == family.name) return i;
    return metric::kInfoFamilies.size();
}

}  // namespace

void MetricWriter::begin(const MetricFamily& family, bool node_label) {
    m_family = &family;
    m_node = node_label;
    m_seen.clear();
    m_out << "# HELP " << family.name << " " << help_text(family.help) << "\n";
    m_out << "# TYPE " << family.name << " " << (family.type == MetricType::counter ? "counter" : "gauge") << "\n";
}

void MetricWriter::sample(const std::vector<std::string>& labels, double value) {
    if (!m_family) throw std::logic_error("MetricWriter::sample before begin");
    const std::size_t expected = m_family->label_count() + (m_node ? 1 : 0);
    if (labels.size() != expected)
        throw std::logic_error(fmt::format("{}: {} label values for {} labels", m_family->name, labels.size(), expected));
    std::string set;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::string_view name = m_node ? (i == 0 ? metric::kNodeLabel : m_family->labels[i - 1]) : m_family->labels[i];
        set += fmt::format("{}{}=\"{}\"", i ? "," : "", name, outside_text(labels[i], Medium::prometheus));
    }
    if (!m_seen.insert(set).second) return;
    m_out << m_family->name;
    if (!set.empty()) m_out << "{" << set << "}";
    m_out << " " << metric_value(value) << "\n";
}

std::string metric_value(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    if (value == std::trunc(value) && std::fabs(value) < 1e15) return fmt::format("{}", static_cast<long long>(value));
    return fmt::format("{}", value);
}

MachineMetrics machine_metrics(const snapshot::Snapshot& snap, const std::vector<snapshot::Finding>& findings) {
    MachineMetrics m;
    m.taken_at = snapshot::parse_utc(snap.taken_at);
    m.gpu_code_runnable = cannot_run_reason(snap).empty();
    for (const auto& f : findings) {
        ++m.by_severity[severity_index(f.severity)];
        auto same = [&](const MachineMetrics::FindingCount& c) { return c.rule == f.id && c.severity == f.severity && c.layer == f.layer; };
        if (auto it = std::find_if(m.findings.begin(), m.findings.end(), same); it != m.findings.end()) ++it->count;
        else m.findings.push_back({f.id, f.severity, f.layer, 1});
    }

    const auto& d = snap.driver;
    if (!d.kernel_module_version.empty() || !d.user_space_versions.empty() || !d.libraries.empty()) {
        const auto v = snapshot::driver_version(snap);
        m.info[info_index(metric::driver_info)].push_back(
            {v ? v->str() : "", d.kernel_module_version, std::string(snapshot::to_string(d.flavour))});
    }
    for (const auto& t : snap.toolkits)
        m.info[info_index(metric::toolkit_info)].push_back(
            {t.release.empty() ? t.version : t.release, t.path, t.is_default ? "true" : "false"});
    for (const auto& c : snap.cudnn) m.info[info_index(metric::cudnn_info)].push_back({c.version, c.cuda_major, c.path});
    for (const auto& f : snap.frameworks) m.info[info_index(metric::framework_info)].push_back({f.name, f.version, f.cuda.value_or("")});
    for (std::size_t i = 0; i < snap.gpus.size(); ++i) {
        const auto& g = snap.gpus[i];
        m.info[info_index(metric::gpu_info)].push_back({std::to_string(i), g.name, g.compute_capability, g.bus_id});
    }
    return m;
}

void write_machine_metrics(MetricWriter& writer, const std::vector<NamedMetrics>& machines, bool with_node) {
    auto labels = [&](const NamedMetrics& n, std::vector<std::string> values) {
        if (with_node) values.insert(values.begin(), n.node);
        return values;
    };
    writer.begin(metric::finding, with_node);
    for (const auto& n : machines)
        for (const auto& f : n.metrics->findings)
            writer.sample(labels(n, {f.rule, std::string(snapshot::to_string(f.severity)), std::string(snapshot::to_string(f.layer))}),
                          f.count);
    writer.begin(metric::findings, with_node);
    for (const auto& n : machines)
        for (auto s : {snapshot::Severity::error, snapshot::Severity::warning, snapshot::Severity::info})
            writer.sample(labels(n, {std::string(snapshot::to_string(s))}), n.metrics->by_severity[severity_index(s)]);
    writer.begin(metric::gpu_code_runnable, with_node);
    for (const auto& n : machines) writer.sample(labels(n, {}), n.metrics->gpu_code_runnable ? 1 : 0);
    for (std::size_t i = 0; i < metric::kInfoFamilies.size(); ++i) {
        writer.begin(metric::kInfoFamilies[i], with_node);
        for (const auto& n : machines)
            for (const auto& values : n.metrics->info[i]) writer.sample(labels(n, values), 1);
    }
    writer.begin(metric::check_timestamp, with_node);
    for (const auto& n : machines)
        if (n.metrics->taken_at) writer.sample(labels(n, {}), static_cast<double>(*n.metrics->taken_at));
}

void render_prometheus(const snapshot::Snapshot& snap, std::ostream& out) {
    const auto metrics = machine_metrics(snap, snap.findings);
    MetricWriter writer(out);
    write_machine_metrics(writer, {{"", &metrics}}, false);
}

}  // namespace cudoctor::report
