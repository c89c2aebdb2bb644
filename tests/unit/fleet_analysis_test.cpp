// fleet's reading and reduction: bad files reported per file, the majority per layer, drift,
// findings by rule, stale and duplicate snapshots.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <filesystem>

#include "fleet/analysis.hpp"
#include "fleet/reader.hpp"
#include "fleet/render.hpp"
#include "snapshot/snapshot_json.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor {
namespace {

snapshot::Snapshot machine(const std::string& host, const std::string& driver, const std::string& taken_at) {
    snapshot::Snapshot s;
    s.tool_version = "test";
    s.hostname = host;
    s.taken_at = taken_at;
    s.driver.kernel_module_version = driver;
    s.driver.user_space_versions = {driver};
    s.driver.flavour = snapshot::ModuleFlavour::open;
    snapshot::Toolkit tk;
    tk.version = "12.4.131";
    tk.path = "/usr/local/cuda-12.4";
    tk.install_method = snapshot::InstallMethod::runfile;
    tk.is_default = true;
    s.toolkits.push_back(tk);
    snapshot::Gpu gpu;
    gpu.pci_device_id = "10de:2684";
    gpu.name = "GeForce RTX 4090";
    gpu.compute_capability = "8.9";
    s.gpus = {gpu, gpu};
    s.platform.os_pretty = "Ubuntu 22.04.4 LTS";
    return s;
}

std::string json_of(const snapshot::Snapshot& s) { return snapshot::to_json_value(s).dump(); }

fleet::NodeSummary summary(const snapshot::Snapshot& s, const std::string& file) { return fleet::summarize(s, kb::Kb::builtin(), file); }

TEST(FleetSummary, ReducesEachLayerToSortedItems) {
    auto s = machine("gpu01", "550.54.14", "2024-06-12T06:41:26Z");
    snapshot::Toolkit old;
    old.version = "11.8.89";
    old.install_method = snapshot::InstallMethod::runfile;
    s.toolkits.push_back(old);
    s.driver.user_space_versions = {"550.54.14", "555.42.02"};
    const auto n = summary(s, "dir/gpu01.json");
    EXPECT_EQ(n.name, "gpu01");
    EXPECT_EQ(n.taken_at_epoch, 1718174486);
    EXPECT_EQ(n.items(fleet::Layer::gpus), std::vector<std::string>{"GeForce RTX 4090 (sm 8.9) ×2"});
    EXPECT_EQ(n.items(fleet::Layer::driver), std::vector<std::string>{"550.54.14 open (user space 555.42.02)"});
    EXPECT_EQ(n.items(fleet::Layer::toolkits), (std::vector<std::string>{"11.8.89", "12.4.131 (default)"}));
    EXPECT_TRUE(n.items(fleet::Layer::cudnn).empty());
    // Today's rules ran over it: the library/module mismatch is a finding.
    bool mismatch = false;
    for (const auto& f : n.findings) mismatch |= f.layer == snapshot::Layer::driver && f.severity == snapshot::Severity::error;
    EXPECT_TRUE(mismatch);
}

TEST(FleetSummary, NamesANodeWithoutHostNameByItsFile) {
    auto s = machine("", "550.54.14", "");
    EXPECT_EQ(summary(s, "/x/snapshots/node7.json").name, "node7");
    EXPECT_EQ(summary(s, "/x/snapshots/node7.json").taken_at_epoch, std::nullopt);
}

class FleetReaderTest : public ::testing::Test {
  protected:
    test::TempDir dir;
    std::string good = json_of(machine("gpu01", "550.54.14", "2024-06-12T06:41:26Z"));
    Expected<snapshot::Snapshot> read(std::string_view name, std::string_view content) {
        return fleet::read_snapshot_file(dir.write(name, content).string());
    }
};

TEST_F(FleetReaderTest, ReadsAGoodSnapshot) {
    auto s = read("a.json", good);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->hostname, "gpu01");
}

TEST_F(FleetReaderTest, TellsATruncatedFileFromGarbage) {
    auto cut = read("cut.json", good.substr(0, good.size() / 2));
    ASSERT_FALSE(cut);
    EXPECT_EQ(cut.error().code, Errc::truncated);
    EXPECT_EQ(cut.error().message, "truncated JSON (the document ends early, after " + std::to_string(good.size() / 2) + " bytes)");
    auto garbage = read("garbage.json", "{\"schema\": 1, oops}");
    ASSERT_FALSE(garbage);
    EXPECT_EQ(garbage.error().code, Errc::parse);
    EXPECT_EQ(garbage.error().message, "not JSON (syntax error at byte 15)");
    auto empty = read("empty.json", "\n");
    ASSERT_FALSE(empty);
    EXPECT_EQ(empty.error().message, "empty file");
}

TEST_F(FleetReaderTest, RefusesANewerSchema) {
    auto j = nlohmann::json::parse(good);
    j["schema"] = 2;
    auto s = read("new.json", j.dump());
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::unsupported);
    EXPECT_EQ(s.error().message, "snapshot schema 2 is not supported (this cudoctor reads schema 1)");
}

TEST_F(FleetReaderTest, LoadsAnOlderSnapshotWithoutHostOrTime) {
    auto j = nlohmann::json::parse(good);
    j.erase("hostname");
    j.erase("taken_at");
    auto s = read("old.json", j.dump());
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->hostname, "");
    EXPECT_EQ(s->taken_at, "");
}

TEST_F(FleetReaderTest, RefusesHostileFilesWithoutReadingThem) {
    // A sparse file past the cap: refused by its size, nothing allocated.
    const auto big = dir.path() / "big.json";
    { std::ofstream(big) << "{"; }
    std::filesystem::resize_file(big, fleet::kMaxSnapshotBytes + 1);
    auto s = fleet::read_snapshot_file(big.string());
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, Errc::too_large);
    // A FIFO must not hang the reader.
    const auto fifo = dir.path() / "fifo.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    s = fleet::read_snapshot_file(fifo.string());
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().message, "not a regular file");
    // A folder named *.json and a missing file.
    std::filesystem::create_directory(dir.path() / "folder.json");
    EXPECT_EQ(fleet::read_snapshot_file((dir.path() / "folder.json").string()).error().message, "not a regular file");
    EXPECT_EQ(fleet::read_snapshot_file((dir.path() / "missing.json").string()).error().code, Errc::not_found);
}

TEST_F(FleetReaderTest, ListsJsonFilesBelowAFolderWithoutFollowingLoops) {
    dir.write("snaps/b.json", good);
    dir.write("snaps/a.json", good);
    dir.write("snaps/rack2/c.json", good);
    dir.write("snaps/notes.txt", "not a snapshot");
    std::filesystem::create_directory_symlink("..", dir.path() / "snaps/rack2/loop");
    auto files = fleet::snapshot_files({(dir.path() / "snaps").string()});
    ASSERT_TRUE(files) << files.error().message;
    const auto p = (dir.path() / "snaps").string();
    EXPECT_EQ(*files, (std::vector<std::string>{p + "/a.json", p + "/b.json", p + "/rack2/c.json"}));
    EXPECT_EQ(fleet::snapshot_files({(dir.path() / "nope").string()}).error().message,
              "no such file or folder: " + (dir.path() / "nope").string());
    std::filesystem::create_directory(dir.path() / "empty");
    EXPECT_EQ(fleet::snapshot_files({(dir.path() / "empty").string()}).error().message, "no snapshot files (*.json) found");
}

TEST_F(FleetReaderTest, ReadsInParallelAndKeepsTheFileOrder) {
    std::vector<std::string> files;
    for (int i = 0; i < 40; ++i) {
        auto s = machine("n" + std::to_string(i), i % 10 == 3 ? "555.42.02" : "550.54.14", "2024-06-12T06:41:26Z");
        files.push_back(dir.write("n" + std::to_string(i) + ".json", i == 17 ? "{\"schema\":" : json_of(s)).string());
    }
    auto results = fleet::read_fleet(files, kb::Kb::builtin(), 4);
    ASSERT_EQ(results.size(), 40u);
    for (int i = 0; i < 40; ++i) {
        if (i == 17) {
            ASSERT_TRUE(std::holds_alternative<fleet::Unreadable>(results[i]));
            EXPECT_EQ(std::get<fleet::Unreadable>(results[i]).code, "truncated");
        } else {
            ASSERT_TRUE(std::holds_alternative<fleet::NodeSummary>(results[i])) << i;
            EXPECT_EQ(std::get<fleet::NodeSummary>(results[i]).name, "n" + std::to_string(i));
        }
    }
}

fleet::AnalyseOptions no_stale() {
    fleet::AnalyseOptions o;
    o.stale_after_seconds = 0;
    return o;
}

std::vector<std::variant<fleet::NodeSummary, fleet::Unreadable>> fleet_of(const std::vector<snapshot::Snapshot>& snaps) {
    std::vector<std::variant<fleet::NodeSummary, fleet::Unreadable>> out;
    for (std::size_t i = 0; i < snaps.size(); ++i) out.emplace_back(summary(snaps[i], "f" + std::to_string(i) + ".json"));
    return out;
}

TEST(FleetAnalysis, FindsTheMajorityAndTheNodesThatDrifted) {
    std::vector<snapshot::Snapshot> snaps;
    for (int i = 1; i <= 5; ++i)
        snaps.push_back(machine("gpu0" + std::to_string(i), i >= 4 ? "555.42.02" : "550.54.14", "2024-06-12T06:41:26Z"));
    snaps[1].toolkits.clear();
    const auto r = fleet::analyse(fleet_of(snaps), {});
    const auto& driver = r.layers[static_cast<std::size_t>(fleet::Layer::driver)];
    EXPECT_EQ(driver.reference, std::vector<std::string>{"550.54.14 open"});
    EXPECT_EQ(driver.agree, 3u);
    EXPECT_FALSE(driver.tie);
    ASSERT_EQ(r.drift.size(), 3u);
    EXPECT_EQ(r.nodes[r.drift[0].node].name, "gpu02");
    ASSERT_EQ(r.drift[0].differences.size(), 1u);
    EXPECT_EQ(r.drift[0].differences[0].layer, fleet::Layer::toolkits);
    EXPECT_EQ(r.drift[0].differences[0].missing, std::vector<std::string>{"12.4.131 (default)"});
    EXPECT_EQ(r.nodes[r.drift[1].node].name, "gpu04");
    EXPECT_EQ(r.drift[1].differences[0].items, std::vector<std::string>{"555.42.02 open"});
    // gpu02 has no toolkit at all, so its toolkit rules differ from the others'; every node
    // appears at most once per rule.
    for (const auto& g : r.findings) EXPECT_LE(g.nodes.size(), 5u) << g.id;
    EXPECT_TRUE(fleet::has_problems(r, snapshot::Severity::error));
    std::ostringstream text;
    fleet::render_text(r, {}, text);
    EXPECT_NE(text.str().find("gpu[04-05]\n      driver: 555.42.02 open (majority: 550.54.14 open)"), std::string::npos) << text.str();
}

TEST(FleetAnalysis, ComparesWithABaselineInsteadOfTheMajority) {
    std::vector<snapshot::Snapshot> snaps;
    for (int i = 1; i <= 3; ++i) snaps.push_back(machine("n" + std::to_string(i), "550.54.14", "2024-06-12T06:41:26Z"));
    fleet::AnalyseOptions o;
    o.baseline = summary(machine("golden", "555.42.02", "2024-06-12T06:41:26Z"), "golden.json");
    const auto r = fleet::analyse(fleet_of(snaps), o);
    EXPECT_EQ(r.drift.size(), 3u);
    EXPECT_EQ(r.layers[static_cast<std::size_t>(fleet::Layer::driver)].agree, 0u);
    EXPECT_EQ(fleet::to_json(r)["reference"]["node"], "golden");
}

TEST(FleetAnalysis, KeepsTheNewerOfTwoSnapshotsOfOneHost) {
    std::vector<snapshot::Snapshot> snaps{machine("gpu01", "550.54.14", "2024-06-12T06:41:26Z"),
                                          machine("gpu01", "555.42.02", "2024-06-01T00:00:00Z"),
                                          machine("gpu02", "550.54.14", "2024-06-12T06:41:26Z")};
    const auto r = fleet::analyse(fleet_of(snaps), no_stale());
    ASSERT_EQ(r.nodes.size(), 2u);
    EXPECT_EQ(r.nodes[0].file, "f0.json");
    ASSERT_EQ(r.unreadable.size(), 1u);
    EXPECT_EQ(r.unreadable[0].file, "f1.json");
    EXPECT_EQ(r.unreadable[0].code, "duplicate");
    EXPECT_EQ(r.unreadable[0].message, "host gpu01 is also in f0.json (the newer snapshot is used)");
    EXPECT_TRUE(r.drift.empty());
}

TEST(FleetAnalysis, ReportsStaleSnapshotsRelativeToTheNewest) {
    std::vector<snapshot::Snapshot> snaps{machine("a", "550.54.14", "2024-06-12T06:41:26Z"),
                                          machine("b", "550.54.14", "2024-06-01T06:41:26Z"),
                                          machine("c", "550.54.14", "2024-06-10T06:41:26Z"), machine("d", "550.54.14", "")};
    const auto r = fleet::analyse(fleet_of(snaps), {});
    ASSERT_EQ(r.stale.size(), 2u);
    EXPECT_EQ(r.nodes[r.stale[0].node].name, "b");
    EXPECT_EQ(r.stale[0].age_seconds, 11 * 86400);
    EXPECT_EQ(r.nodes[r.stale[1].node].name, "d");
    EXPECT_EQ(r.stale[1].age_seconds, std::nullopt);
    EXPECT_TRUE(fleet::analyse(fleet_of(snaps), no_stale()).stale.empty());
}

TEST(FleetAnalysis, SaysWhenTheMajorityIsATie) {
    std::vector<snapshot::Snapshot> snaps{machine("a", "550.54.14", "2024-06-12T06:41:26Z"),
                                          machine("b", "555.42.02", "2024-06-12T06:41:26Z")};
    const auto r = fleet::analyse(fleet_of(snaps), {});
    EXPECT_TRUE(r.layers[static_cast<std::size_t>(fleet::Layer::driver)].tie);
    EXPECT_EQ(r.drift.size(), 1u);
}

TEST(FleetAnalysis, AnEmptyFleetIsAnEmptyReport) {
    const auto r = fleet::analyse({}, {});
    EXPECT_TRUE(r.nodes.empty());
    EXPECT_FALSE(fleet::has_problems(r, snapshot::Severity::warning));
    std::ostringstream out;
    fleet::render_text(r, {}, out);
    fleet::render_markdown(r, {}, out);
    EXPECT_EQ(fleet::to_json(r)["node_count"], 0);
}

}  // namespace
}  // namespace cudoctor
