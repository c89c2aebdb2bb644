// The Prometheus text writer and check's metrics, on literals: exact lines, the format's escapes,
// one sample per label set, and the metric registry's names against the format's rules.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "report/metrics.hpp"
#include "report/prometheus.hpp"
#include "report/style.hpp"

namespace cudoctor::report {
namespace {

TEST(PrometheusEscape, LabelValuesEscapeBackslashQuoteAndLineBreak) {
    EXPECT_EQ(outside_text("a\\b\"c\nd", Medium::prometheus), "a\\\\b\\\"c\\nd");
    // Other controls cannot break the line either; valid UTF-8 stays, invalid bytes do not.
    EXPECT_EQ(outside_text("x\ry\x1b", Medium::prometheus), "x?y?");
    EXPECT_EQ(outside_text("GeForce RTX™ 4090", Medium::prometheus), "GeForce RTX™ 4090");
    EXPECT_EQ(outside_text("bad\xff", Medium::prometheus), "bad?");
}

TEST(PrometheusWriter, WritesHelpTypeAndEscapedSamples) {
    static constexpr MetricFamily family{"test_thing_info", MetricType::gauge, "A help line with a \\ and\na break.", {"name", "path"}};
    std::ostringstream out;
    MetricWriter w(out);
    w.begin(family);
    w.sample({"quote\"d", "/opt/a\\b"}, 1);
    w.sample({"line\nbreak", ""}, 2.5);
    EXPECT_EQ(out.str(),
              "# HELP test_thing_info A help line with a \\\\ and\\na break.\n"
              "# TYPE test_thing_info gauge\n"
              "test_thing_info{name=\"quote\\\"d\",path=\"/opt/a\\\\b\"} 1\n"
              "test_thing_info{name=\"line\\nbreak\",path=\"\"} 2.5\n");
}

TEST(PrometheusWriter, NodeLabelFirstAndOneSamplePerLabelSet) {
    std::ostringstream out;
    MetricWriter w(out);
    w.begin(metric::findings, true);
    w.sample({"gpu01", "error"}, 2);
    w.sample({"gpu01", "error"}, 7);  // the same series again: dropped
    w.sample({"gpu02", "error"}, 0);
    w.begin(metric::check_timestamp);
    w.sample({}, 1718172000);
    EXPECT_EQ(out.str(),
              "# HELP cudoctor_findings Number of active findings of each severity.\n"
              "# TYPE cudoctor_findings gauge\n"
              "cudoctor_findings{node=\"gpu01\",severity=\"error\"} 2\n"
              "cudoctor_findings{node=\"gpu02\",severity=\"error\"} 0\n"
              "# HELP cudoctor_check_timestamp_seconds When the machine was probed, in seconds since the epoch.\n"
              "# TYPE cudoctor_check_timestamp_seconds gauge\n"
              "cudoctor_check_timestamp_seconds 1718172000\n");
}

TEST(PrometheusWriter, WrongLabelCountIsAProgrammingError) {
    std::ostringstream out;
    MetricWriter w(out);
    EXPECT_THROW(w.sample({}, 1), std::logic_error);
    w.begin(metric::findings);
    EXPECT_THROW(w.sample({"error", "extra"}, 1), std::logic_error);
}

TEST(PrometheusWriter, Values) {
    EXPECT_EQ(metric_value(0), "0");
    EXPECT_EQ(metric_value(-3), "-3");
    EXPECT_EQ(metric_value(8589934592.0), "8589934592");
    EXPECT_EQ(metric_value(0.25), "0.25");
    EXPECT_EQ(metric_value(-1234.5), "-1234.5");
    EXPECT_EQ(metric_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
    EXPECT_EQ(metric_value(std::numeric_limits<double>::infinity()), "+Inf");
    EXPECT_EQ(metric_value(-std::numeric_limits<double>::infinity()), "-Inf");
    EXPECT_EQ(std::stod(metric_value(1e300)), 1e300);
}

// Every family of the registry: a legal, unique name; `_total` on counters and only there; a unit
// suffix where the value has a unit; label names legal, unique and not reserved ("__", "le",
// "quantile") nor the node label fleet adds.
TEST(PrometheusRegistry, NamesFollowTheFormatsRules) {
    const std::vector<MetricFamily> all = {metric::finding,          metric::findings,         metric::gpu_code_runnable,
                                           metric::driver_info,      metric::toolkit_info,     metric::cudnn_info,
                                           metric::framework_info,   metric::gpu_info,         metric::check_timestamp,
                                           metric::fleet_nodes,      metric::fleet_unreadable, metric::fleet_node_drift,
                                           metric::fleet_node_stale, metric::gpu_memory_used,  metric::xid_events,
                                           metric::memory_trend,     metric::memory_leak,      metric::cuda_errors};
    const std::regex name_re("cudoctor_[a-z][a-z0-9_]*[a-z0-9]"), label_re("[a-z][a-z0-9_]*");
    std::set<std::string_view> names;
    for (const auto& f : all) {
        SCOPED_TRACE(std::string(f.name));
        EXPECT_TRUE(std::regex_match(std::string(f.name), name_re));
        EXPECT_TRUE(names.insert(f.name).second) << "duplicate name";
        EXPECT_EQ(f.name.ends_with("_total"), f.type == MetricType::counter);
        EXPECT_FALSE(f.help.empty());
        std::set<std::string_view> labels;
        for (std::size_t i = 0; i < f.label_count(); ++i) {
            EXPECT_TRUE(std::regex_match(std::string(f.labels[i]), label_re)) << f.labels[i];
            EXPECT_TRUE(labels.insert(f.labels[i]).second) << "duplicate label " << f.labels[i];
            EXPECT_NE(f.labels[i], "le");
            EXPECT_NE(f.labels[i], "quantile");
        }
        // Only fleet's own families name the node themselves; the others get it from the writer.
        if (!f.name.starts_with("cudoctor_fleet_")) {
            EXPECT_FALSE(labels.contains(metric::kNodeLabel));
        }
    }
    for (const auto& f : metric::kInfoFamilies) EXPECT_TRUE(f.name.ends_with("_info")) << f.name;
    EXPECT_TRUE(metric::check_timestamp.name.ends_with("_seconds"));
    EXPECT_TRUE(metric::gpu_memory_used.name.ends_with("_bytes"));
}

snapshot::Snapshot sample_machine() {
    snapshot::Snapshot s;
    s.taken_at = "2024-06-12T06:00:00Z";
    s.driver.kernel_module_version = "550.54.14";
    s.driver.flavour = snapshot::ModuleFlavour::open;
    s.driver.user_space_versions = {"550.54.14"};
    snapshot::Toolkit a;
    a.version = "12.4.131";
    a.release = "12.4.1";
    a.path = "/usr/local/cuda-12.4";
    a.is_default = true;
    snapshot::Toolkit b;
    b.version = "11.8.89";
    b.path = "/usr/local/cuda-11.8";
    s.toolkits = {a, b};
    snapshot::Cudnn c;
    c.version = "9.1.0";
    c.cuda_major = "12";
    c.path = "/usr/lib/x86_64-linux-gnu";
    s.cudnn = {c};
    snapshot::Framework cpu;
    cpu.name = "torch";
    cpu.version = "2.4.0+cpu";
    snapshot::Framework gpu = cpu;
    gpu.version = "2.4.0+cu121";
    gpu.cuda = "12.1";
    s.frameworks = {cpu, gpu};
    snapshot::Gpu g;
    g.bus_id = "0000:01:00.0";
    g.name = "GeForce \"RTX\" 4090";
    g.compute_capability = "8.9";
    s.gpus = {g, snapshot::Gpu{}};
    snapshot::Finding f;
    f.id = "toolkit-not-on-path";
    f.severity = snapshot::Severity::warning;
    f.layer = snapshot::Layer::toolkit;
    snapshot::Finding e;
    e.id = "driver-library-mismatch";
    e.severity = snapshot::Severity::error;
    e.layer = snapshot::Layer::driver;
    s.findings = {f, e, f};
    return s;
}

TEST(PrometheusCheck, OneMachinesMetrics) {
    std::ostringstream out;
    render_prometheus(sample_machine(), out);
    const std::string text = out.str();
    auto has = [&](const std::string& line) { return text.find("\n" + line + "\n") != std::string::npos; };
    EXPECT_TRUE(has("cudoctor_finding{rule=\"toolkit-not-on-path\",severity=\"warning\",layer=\"toolkit\"} 2")) << text;
    EXPECT_TRUE(has("cudoctor_finding{rule=\"driver-library-mismatch\",severity=\"error\",layer=\"driver\"} 1")) << text;
    EXPECT_TRUE(has("cudoctor_findings{severity=\"error\"} 1"));
    EXPECT_TRUE(has("cudoctor_findings{severity=\"warning\"} 2"));
    EXPECT_TRUE(has("cudoctor_findings{severity=\"info\"} 0"));
    EXPECT_TRUE(has("cudoctor_driver_info{version=\"550.54.14\",kernel_module=\"550.54.14\",flavour=\"open\"} 1")) << text;
    EXPECT_TRUE(has("cudoctor_toolkit_info{release=\"12.4.1\",path=\"/usr/local/cuda-12.4\",default=\"true\"} 1"));
    // No release known: the version nvcc reports stands in.
    EXPECT_TRUE(has("cudoctor_toolkit_info{release=\"11.8.89\",path=\"/usr/local/cuda-11.8\",default=\"false\"} 1"));
    EXPECT_TRUE(has("cudoctor_cudnn_info{version=\"9.1.0\",cuda_major=\"12\",path=\"/usr/lib/x86_64-linux-gnu\"} 1"));
    EXPECT_TRUE(has("cudoctor_framework_info{name=\"torch\",version=\"2.4.0+cpu\",cuda=\"\"} 1"));
    EXPECT_TRUE(has("cudoctor_framework_info{name=\"torch\",version=\"2.4.0+cu121\",cuda=\"12.1\"} 1"));
    EXPECT_TRUE(has("cudoctor_gpu_info{index=\"0\",name=\"GeForce \\\"RTX\\\" 4090\",compute_capability=\"8.9\",pci=\"0000:01:00.0\"} 1"))
        << text;
    EXPECT_TRUE(has("cudoctor_gpu_info{index=\"1\",name=\"\",compute_capability=\"\",pci=\"\"} 1"));
    EXPECT_TRUE(text.ends_with("\ncudoctor_check_timestamp_seconds 1718172000\n")) << text;
}

TEST(PrometheusCheck, AnEmptyMachineDeclaresEveryFamilyAndClaimsNothing) {
    snapshot::Snapshot empty;
    std::ostringstream out;
    render_prometheus(empty, out);
    const std::string text = out.str();
    for (const auto& f : metric::kInfoFamilies) {
        EXPECT_NE(text.find("# TYPE " + std::string(f.name) + " gauge\n"), std::string::npos) << f.name;
        EXPECT_EQ(text.find(std::string(f.name) + "{"), std::string::npos) << "no sample for " << f.name;
    }
    EXPECT_EQ(text.find("cudoctor_finding{"), std::string::npos);
    EXPECT_NE(text.find("cudoctor_findings{severity=\"error\"} 0\n"), std::string::npos);
    // No time stamp: no sample, rather than a made-up time.
    EXPECT_EQ(text.find("\ncudoctor_check_timestamp_seconds "), std::string::npos);
}

}  // namespace
}  // namespace cudoctor::report
