// fleet's fast snapshot reader (simdjson On-Demand) against the nlohmann one it stands in for:
// the same Snapshot on every real snapshot (each fixture machine's `check --json`) and on a
// snapshot with every member set, the slow reader's answer on every hostile document, and the
// same `fleet` output, text and JSON, from both on a generated fleet with broken files in it.
#include <sys/stat.h>

#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fleet/analysis.hpp"
#include "fleet/prometheus.hpp"
#include "fleet/reader.hpp"
#include "fleet/render.hpp"
#include "integration/run_cudoctor.hpp"
#include "report/style.hpp"
#include "rules/rules.hpp"
#include "snapshot/fast_reader.hpp"
#include "snapshot/snapshot_json.hpp"
#include "snapshot/validate.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor {
namespace fleet_fast_reader_test {
namespace {

/// Every fixture machine's `cudoctor check --json`, by machine name (run once for all tests).
const std::map<std::string, std::string>& fixture_snapshots() {
    static const auto snapshots = [] {
        std::map<std::string, std::string> out;
        for (const auto& e : std::filesystem::directory_iterator(CUDOCTOR_ROOTS_DIR)) {
            if (!e.is_directory()) continue;
            const auto run = test::run_cudoctor({"check", "--root", e.path().string(), "--json"}, std::chrono::seconds(60));
            if (run.out.empty()) continue;
            out[e.path().filename().string()] = run.out;
        }
        return out;
    }();
    return snapshots;
}

/// What the fast reader says of `text`: nullopt (it hands over) or a Snapshot. When it answers,
/// the answer must be machine_from_json_text's, member for member.
std::optional<snapshot::Snapshot> expect_agreement(std::string_view text, const std::string& what) {
    snapshot::FastReader reader;
    auto fast = reader.parse_text(text);
    const auto slow = snapshot::machine_from_json_text(text);
    if (fast) {
        EXPECT_TRUE(slow) << what << ": the fast reader read what nlohmann refuses: " << slow.error().message;
        if (slow) {
            EXPECT_EQ(snapshot::to_json_value(*fast).dump(), snapshot::to_json_value(*slow).dump()) << what;
        }
    }
    return fast;
}

TEST(FleetFastReader, ReadsEveryFixtureMachineLikeNlohmann) {
    const auto& all = fixture_snapshots();
    ASSERT_GE(all.size(), 20u) << "the fixture machines' snapshots are the corpus";
    snapshot::FastReader reader;  // one reader for all, as a fleet thread uses it
    for (const auto& [name, text] : all) {
        const auto slow = snapshot::machine_from_json_text(text);
        ASSERT_TRUE(slow) << name << ": " << slow.error().message;
        const auto fast = reader.parse_text(text);
        ASSERT_TRUE(fast) << name << ": a real snapshot must take the fast path";
        EXPECT_EQ(snapshot::to_json_value(*fast).dump(), snapshot::to_json_value(*slow).dump()) << name;
        // Compact, pretty and with unknown members around it: the same.
        auto j = nlohmann::json::parse(text);
        EXPECT_TRUE(expect_agreement(j.dump(), name + " compact"));
        j["future_member"] = {{"a", {1, 2.5, -3e-7, nullptr, true, "x\u00e9\\\"\n"}}, {"b", nlohmann::json::object()}};
        j["driver"]["future"] = nlohmann::json::array({nlohmann::json::object()});
        const auto with_unknown = expect_agreement(j.dump(2), name + " with unknown members");
        EXPECT_TRUE(with_unknown);
    }
}

// A Snapshot with one element in every list and every optional set, then every leaf of its JSON
// made distinct: a member the fast reader skipped or read into the wrong place shows here.
nlohmann::json every_member_set() {
    using namespace snapshot;
    Snapshot s;
    s.overrides = {""};
    s.gpus = {Gpu{}};
    s.gpus[0].evidence = {Evidence{}};
    s.driver.modules_known = true;
    s.driver.loaded_modules = s.driver.user_space_versions = s.driver.packages = {""};
    s.driver.libraries = {DriverLibrary{}};
    s.driver.package_events = {PackageEvent{}};
    s.driver.evidence = {Evidence{}};
    Toolkit tk;
    tk.components = {ToolkitComponent{}};
    tk.max_gcc = 0;
    tk.found_by = {""};
    tk.evidence = {Evidence{}};
    s.toolkits = {tk};
    Cudnn cudnn;
    cudnn.library_versions = {""};
    CudnnFlattenedChain chain;
    chain.names = chain.copies = {""};
    cudnn.flattened = {chain};
    cudnn.evidence = {Evidence{}};
    s.cudnn = {cudnn};
    Framework fw;
    fw.cuda = "";
    fw.cuda_archs = fw.nvidia_wheels = fw.binary_archs = {""};
    fw.evidence = {Evidence{}};
    s.frameworks = {fw};
    s.pythons = {Python{}};
    auto& env = s.environment;
    env.path = env.nvcc_on_path = env.nvcc_on_path_real = env.ld_so_conf_dirs = env.conda_envs = {""};
    LibraryPathEntry lp;
    lp.cuda_libraries = {""};
    env.ld_library_path = {lp};
    env.cuda_home = env.cuda_path = env.cuda_visible_devices = env.active_conda_env = env.virtual_env = env.cuda_launch_blocking = "";
    env.loader_cache = {LoaderEntry{}};
    StartupLine line;
    line.missing_toolkits = {""};
    env.startup_lines = {line};
    env.evidence = {Evidence{}};
    auto& p = s.platform;
    p.gcc_default = 0;
    p.gcc_installed = {0};
    p.wsl_memory_limit = 0;
    p.dkms = {DkmsModule{}};
    p.evidence = {Evidence{}};
    p.nvidia_visible_devices = p.nvidia_driver_capabilities = p.nvidia_require_cuda = p.nvidia_disable_require = "";
    p.cdi_specs = p.apt_keyrings = {""};
    AptSource src;
    src.components = {""};
    p.apt_sources = {src};
    p.held_packages = {HeldPackage{}};
    AptPin pin;
    pin.priority = 0;
    p.apt_pins = {pin};
    s.notes = {ProbeNote{}};
    Finding f;
    f.evidence = {Evidence{}};
    s.findings = {f};

    auto j = to_json_value(s);
    int n = 0;
    // Enums get a spelling that is not their default (an unknown one would read as the default).
    const std::map<std::string, std::string> enums = {{"flavour", "open"},
                                                      {"install_method", "conda"},
                                                      {"severity", "error"},
                                                      {"layer", "gpu"}};
    std::function<void(nlohmann::json&, const std::string&)> vary = [&](nlohmann::json& v, const std::string& key) {
        ++n;
        if (v.is_object()) {
            for (auto& [k, member] : v.items())
                if (!(key.empty() && (k == "schema" || k == "kind"))) vary(member, k);
        } else if (v.is_array()) {
            EXPECT_FALSE(v.empty()) << "\"" << key << "\": give it an element above";
            for (auto& e : v) vary(e, key);
        } else if (v.is_string()) {
            v = enums.contains(key) ? enums.at(key) : key + "-" + std::to_string(n);
        } else if (v.is_boolean()) {
            v = !v.get<bool>();
        } else if (v.is_number()) {
            v = n;
        } else {
            ADD_FAILURE() << "\"" << key << "\" is null: set it above";
        }
    };
    vary(j, "");
    return j;
}

TEST(FleetFastReader, ReadsEveryMemberIntoItsPlace) {
    const auto j = every_member_set();
    const auto text = j.dump();
    const auto slow = snapshot::machine_from_json_text(text);
    ASSERT_TRUE(slow) << slow.error().message;
    // nlohmann reads back every distinct value (no leaf was left at a default)…
    ASSERT_EQ(snapshot::to_json_value(*slow), j);
    // …and so does the fast reader.
    const auto fast = expect_agreement(text, "every member set");
    ASSERT_TRUE(fast);
    EXPECT_EQ(snapshot::to_json_value(*fast), j);
    EXPECT_TRUE(*fast == *slow);
}

std::string real_snapshot() {
    const auto& all = fixture_snapshots();
    const auto it = all.find("ubuntu2204-rtx4060ti");
    return it != all.end() ? it->second : all.begin()->second;
}

// Documents each reader may refuse; where the fast one answers, it answers as nlohmann does.
std::vector<std::pair<std::string, std::string>> hostile_documents() {
    const std::string head = R"({"schema":1,"kind":"cudoctor-machine")";
    std::vector<std::pair<std::string, std::string>> docs = {
        {"minimal", head + "}"},
        {"trailing space", head + "} \n"},
        {"trailing garbage", head + "} x"},
        {"second document", head + "}{}"},
        {"extra brace", head + "}}"},
        {"trailing comma", head + ",}"},
        {"missing comma", R"({"schema":1 "kind":"cudoctor-machine"})"},
        {"missing colon", head + R"(,"x" 1})"},
        {"bad literal in an unknown member", head + R"(,"x":[1,2,tru]})"},
        {"trailing comma in an unknown array", head + R"(,"x":[1,2,]})"},
        {"bad escape in an unknown string", head + R"(,"x":"\x"})"},
        {"lone high surrogate", head + R"(,"x":"\ud800"})"},
        {"lone low surrogate", head + R"(,"hostname":"\udc00"})"},
        {"surrogate pair", head + R"(,"hostname":"\ud83d\ude00"})"},
        {"NUL escape", head + R"(,"hostname":"a\u0000b"})"},
        {"escaped key", R"({"schema":1,"kind":"cudoctor-mach\u0069ne","host\u006eame":"h"})"},
        {"raw control character", head + ",\"hostname\":\"a\tb\"}"},
        {"invalid UTF-8", head + ",\"x\":\"\xff\"}"},
        {"UTF-8", head + ",\"hostname\":\"\xc3\xa9\"}"},
        {"BOM", "\xef\xbb\xbf" + head + "}"},
        {"leading zero", head + R"(,"x":012})"},
        {"bare minus", head + R"(,"x":-})"},
        {"huge number", head + R"(,"x":1e400})"},
        {"tiny number", head + R"(,"x":1e-400})"},
        {"huge integer", head + R"(,"x":123456789012345678901234567890})"},
        {"huge integer in an int", head + R"(,"platform":{"gcc_default":3000000000}})"},
        {"float in an int", head + R"(,"platform":{"gcc_default":12.0}})"},
        {"bool in an int", head + R"(,"platform":{"gcc_default":true}})"},
        {"negative zero", head + R"(,"platform":{"gcc_default":-0}})"},
        {"largest uint64", head + R"(,"platform":{"wsl_memory_limit":18446744073709551615}})"},
        {"uint64 overflow", head + R"(,"platform":{"wsl_memory_limit":18446744073709551616}})"},
        {"negative size", head + R"(,"gpus":[],"cudnn":[{"flattened":[{"size":-1}]}]})"},
        {"null string", head + R"(,"hostname":null})"},
        {"number string", head + R"(,"hostname":1})"},
        {"null struct", head + R"(,"driver":null})"},
        {"array struct", head + R"(,"driver":[]})"},
        {"number in a list of structs", head + R"(,"gpus":[{"name":"a"},1]})"},
        {"number enum", head + R"(,"driver":{"flavour":3}})"},
        {"unknown enum", head + R"(,"driver":{"flavour":"weird"},"findings":[{"layer":"zzz","severity":"zzz"}]})"},
        {"null optional", head + R"(,"driver":{"modules_known":null}})"},
        {"number bool", head + R"(,"driver":{"modules_known":1}})"},
        {"duplicate member", head + R"(,"hostname":"a","hostname":"b"})"},
        {"duplicate nested member", head + R"(,"driver":{"max_cuda":"12.4","max_cuda":"12.6"}})"},
        {"duplicate unknown member", head + R"(,"x":{"a":1,"a":2}})"},
        {"duplicate kind", head + R"(,"kind":"other"})"},
        {"float schema", R"({"schema":1.0,"kind":"cudoctor-machine"})"},
        {"other schema", R"({"schema":2,"kind":"cudoctor-machine"})"},
        {"schema wrapping to 1", R"({"schema":4294967297,"kind":"cudoctor-machine"})"},
        {"no schema", R"({"kind":"cudoctor-machine"})"},
        {"other kind", R"({"schema":1,"kind":"verify"})"},
        {"null kind", R"({"schema":1,"kind":null})"},
        {"no kind, nothing else", R"({"schema":1})"},
        {"no kind, every required member",
         R"({"schema":1,"tool_version":"x","root":"/","gpus":[],"driver":{},"toolkits":[],"environment":{},"platform":{}})"},
        {"no kind, a verify report",
         R"({"schema":1,"tool_version":"x","root":"/","gpus":[],"driver":{},"toolkits":[],"environment":{},"platform":{},"levels":[]})"},
        {"no kind, one required member missing",
         R"({"schema":1,"tool_version":"x","root":"/","gpus":[],"driver":{},"toolkits":[],"environment":{}})"},
        {"array", "[1]"},
        {"string", "\"x\""},
        {"number", "1"},
        {"empty", ""},
        {"spaces", "  \n"},
        {"unterminated", head},
        {"deep unknown member", head + ",\"x\":" + std::string(100, '[') + std::string(100, ']') + "}"},
        {"very deep unknown member", head + ",\"x\":" + std::string(5000, '[') + std::string(5000, ']') + "}"},
        {"deep and unbalanced", head + ",\"x\":" + std::string(5000, '[') + "}"},
    };
    // A real snapshot cut short at many places, and with its members' types changed.
    const std::string real = real_snapshot();
    for (std::size_t cut = 0; cut < real.size(); cut += 1 + real.size() / 150)
        docs.emplace_back("cut at " + std::to_string(cut), real.substr(0, cut));
    auto j = nlohmann::json::parse(real);
    for (const auto& [k, v] : j.items()) {
        auto changed = j;
        changed[k] = v.is_string() ? nlohmann::json(1) : nlohmann::json("x");
        docs.emplace_back("top member " + k + " of another type", changed.dump());
        auto dup = j.dump();
        dup.insert(1, "\"" + k + "\":" + v.dump() + ",");
        docs.emplace_back("top member " + k + " twice", dup);
    }
    return docs;
}

TEST(FleetFastReader, AnswersHostileDocumentsAsNlohmannOrHandsThemOver) {
    int answered = 0;
    for (const auto& [what, text] : hostile_documents()) answered += expect_agreement(text, what) ? 1 : 0;
    EXPECT_GT(answered, 10);  // the valid ones do take the fast path
    // Those that must take it.
    const std::string head = R"({"schema":1,"kind":"cudoctor-machine")";
    EXPECT_TRUE(expect_agreement(head + R"(,"x":{"a":[1,{"b":null}],"a":2},"hostname":"h\u00e9"})", "unknown"));
    const auto weird = expect_agreement(head + R"(,"driver":{"flavour":"weird"},"findings":[{"layer":"zzz"}]})", "enums");
    ASSERT_TRUE(weird);
    EXPECT_EQ(weird->driver.flavour, snapshot::ModuleFlavour::unknown);
    EXPECT_EQ(weird->findings.at(0).layer, snapshot::Layer::platform);  // the first of the JSON table
    // Those it must hand over.
    snapshot::FastReader reader;
    EXPECT_FALSE(reader.parse_text(head + R"(,"hostname":"a","hostname":"b"})"));
    EXPECT_FALSE(reader.parse_text(head + R"(,"platform":{"gcc_default":12.0}})"));
    EXPECT_FALSE(reader.parse_text(head + R"(,"x":[tru]})"));
    EXPECT_FALSE(reader.parse_text(head + "} x"));
}

TEST(FleetFastReader, ReusesItsBufferAcrossSizes) {
    snapshot::FastReader reader;
    const std::string real = real_snapshot();
    const std::string big = real.substr(0, real.size() - 1) + ",\"pad\":\"" + std::string(5u << 20, 'x') + "\"}";
    for (const auto& text : {real, big, real, std::string("{}"), real}) {
        const auto fast = reader.parse_text(text);
        const auto slow = snapshot::machine_from_json_text(text);
        ASSERT_EQ(bool(fast), bool(slow));
        if (fast) {
            EXPECT_EQ(snapshot::to_json_value(*fast), snapshot::to_json_value(*slow));
        }
    }
}

// read_fleet keeps the rules' findings per configuration, a configuration being a snapshot without
// its host name and time: that holds only while no rule reads those two.
TEST(FleetFastReader, RulesReadNeitherHostNameNorTime) {
    for (const auto& e : std::filesystem::directory_iterator(std::string(CUDOCTOR_SOURCE_DIR) + "/src/rules")) {
        std::ifstream in(e.path());
        std::stringstream text;
        text << in.rdbuf();
        EXPECT_EQ(text.str().find("hostname"), std::string::npos) << e.path() << ": read_fleet's RuleMemo assumes no rule reads it";
        EXPECT_EQ(text.str().find("taken_at"), std::string::npos) << e.path() << ": read_fleet's RuleMemo assumes no rule reads it";
    }
    const auto& knowledge = kb::Kb::builtin();
    for (const auto& [name, text] : fixture_snapshots()) {
        auto snap = snapshot::machine_from_json_text(text);
        ASSERT_TRUE(snap) << name;
        auto findings = [&] { return rules::evaluate(*snap, knowledge); };
        const auto with = findings();
        snap->hostname = "other-host";
        snap->taken_at = "1999-01-01T00:00:00Z";
        EXPECT_TRUE(findings() == with) << name;
        snap->hostname.clear();
        snap->taken_at.clear();
        EXPECT_TRUE(findings() == with) << name;
    }
}

// `fleet` on a generated fleet: nodes copied from the fixture machines with their own names and
// times, some drifted, stale, duplicated or broken; text, Markdown, Prometheus and JSON output
// identical from both readers.
TEST(FleetFastReader, FleetOutputIsTheSameFromBothReaders) {
    test::TempDir dir;
    std::vector<nlohmann::json> seeds;
    for (const auto& [name, text] : fixture_snapshots()) seeds.push_back(nlohmann::json::parse(text));
    ASSERT_FALSE(seeds.empty());
    for (int i = 0; i < 400; ++i) {
        auto snap = seeds[i % 3 == 0 ? static_cast<std::size_t>(i) % seeds.size() : 0];
        char host[16];
        std::snprintf(host, sizeof host, "gpu%04d", i);
        snap["hostname"] = i % 97 == 5 ? "gpu0001" : host;                          // a few duplicates
        if (i % 89 == 3) snap["hostname"] = std::string(host) + "-\u00fc\"\t\x01";  // escaped in JSON, made safe in text
        snap["taken_at"] = "2024-06-" + std::string(i % 53 == 0 ? "01" : "12") + "T06:" + std::to_string(10 + i % 50) + ":00Z";
        if (i % 31 == 0) snap["driver"]["kernel_module_version"] = "555.42.02";
        if (i % 37 == 0 && !snap["toolkits"].empty()) snap["toolkits"].erase(snap["toolkits"].size() - 1);
        std::string text = i % 2 ? snap.dump() : snap.dump(2);
        if (i % 101 == 7) text.resize(text.size() / 2);
        if (i % 103 == 9) {
            snap["schema"] = 2;
            text = snap.dump();
        }
        if (i % 107 == 11) {
            snap["gpus"] = "none";
            text = snap.dump();
        }
        if (i % 109 == 13) text.insert(1, "\"hostname\":\"first\",");
        dir.write(std::string(host) + ".json", text);
    }
    dir.write("empty.json", "");
    dir.write("garbage.json", "{\"schema\": 1, oops}");
    dir.write("verify.json", R"({"schema":1,"levels":[]})");
    std::filesystem::create_directory(dir.path() / "folder.json");
    const auto fifo = dir.path() / "fifo.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);

    auto files = fleet::snapshot_files({dir.str()});
    ASSERT_TRUE(files);
    files->push_back((dir.path() / "missing.json").string());
    const auto& knowledge = kb::Kb::builtin();
    auto outputs = [&](fleet::SnapshotParser parser, unsigned jobs) {
        const auto report = fleet::analyse(fleet::read_fleet(*files, knowledge, jobs, true, parser), {});
        std::ostringstream text, markdown, prometheus;
        fleet::render_text(report, {}, text);
        fleet::render_markdown(report, {}, markdown);
        fleet::render_prometheus(report, prometheus);
        std::ostringstream streamed;
        fleet::write_json(report, streamed);
        EXPECT_EQ(streamed.str(), report::json_text(fleet::to_json(report))) << "write_json differs from to_json";
        return std::vector<std::string>{text.str(), markdown.str(), prometheus.str(), streamed.str()};
    };
    const auto slow = outputs(fleet::SnapshotParser::nlohmann, 3);
    EXPECT_EQ(outputs(fleet::SnapshotParser::fast, 3), slow);
    EXPECT_EQ(outputs(fleet::SnapshotParser::fast, 1), slow);
    // write_json against to_json with a baseline, and on an empty fleet.
    auto results = fleet::read_fleet(*files, knowledge, 2, false);
    fleet::AnalyseOptions with_baseline;
    for (const auto& r : results)
        if (const auto* node = std::get_if<fleet::NodeSummary>(&r); node && !with_baseline.baseline) with_baseline.baseline = *node;
    ASSERT_TRUE(with_baseline.baseline);
    const auto report = fleet::analyse(std::move(results), with_baseline);
    std::ostringstream streamed, empty;
    fleet::write_json(report, streamed);
    EXPECT_EQ(streamed.str(), report::json_text(fleet::to_json(report)));
    fleet::write_json(fleet::analyse({}, {}), empty);
    EXPECT_EQ(empty.str(), report::json_text(fleet::to_json(fleet::analyse({}, {}))));
    // The broken files are there, with the slow reader's messages.
    EXPECT_NE(slow[0].find("empty file"), std::string::npos);
    EXPECT_NE(slow[3].find("truncated JSON"), std::string::npos);
    EXPECT_NE(slow[3].find("snapshot schema 2 is not supported"), std::string::npos);
    EXPECT_NE(slow[3].find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace fleet_fast_reader_test
}  // namespace cudoctor
