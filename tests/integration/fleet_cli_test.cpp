// `cudoctor check --output` and `cudoctor fleet` on snapshots the real binary takes of fixture
// machines: each copy given its own /etc/hostname and a pinned clock (CUDOCTOR_OVERRIDE_TIME).
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/json_query.hpp"
#include "support/mutable_root.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {
using nlohmann::json;
namespace fs = std::filesystem;

RunResult run_at(const std::string& time, const std::vector<std::string>& args) {
    auto env = outside_environment();
    env.push_back("CUDOCTOR_OVERRIDE_TIME=" + time);
    return run_program(CUDOCTOR_BINARY, args, env, std::chrono::seconds(30));
}

// gpu01–gpu03: the same healthy desktop; gpu04: driver libraries newer than the loaded module;
// gpu05: a server with three toolkits, probed ten days earlier. Then three bad files: a copy cut
// in half, a copy claiming schema 2, and an older second snapshot of gpu02.
class FleetCliTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        s_dir = new TempDir();
        fs::create_directory(dir() / "snaps");
        const std::string out = (dir() / "snaps/%h.json").string();
        auto take = [&](const std::string& scenario, const std::string& host, const std::string& time) {
            MutableRoot root(scenario);
            root.write("/etc/hostname", host + "\n");
            auto r = run_at(time, {"check", "--root", root.path().string(), "--json", "--output", out});
            ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.describe() << r.err;
            ASSERT_EQ(r.out, "") << "--output writes nothing to stdout";
        };
        MutableRoot desktop("ubuntu2204-rtx4060ti");
        for (const char* host : {"gpu01", "gpu02", "gpu03"}) {
            desktop.write("/etc/hostname", std::string("# the desktop\n") + host + "\n");
            auto r = run_at("2024-06-12T06:00:00Z", {"check", "--root", desktop.path().string(), "--json", "--output", out});
            ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.describe() << r.err;
        }
        take("driver-mismatch", "gpu04", "2024-06-12T05:30:00Z");
        take("server-three-toolkits", "gpu05", "2024-06-02T06:00:00Z");

        const std::string good = slurp(dir() / "snaps/gpu01.json");
        auto newer = json::parse(good);
        newer["schema"] = 2;
        fs::create_directories(dir() / "bad");
        std::ofstream(dir() / "bad/cut.json") << good.substr(0, good.size() / 3);
        std::ofstream(dir() / "bad/future.json") << newer.dump();
        auto old = json::parse(slurp(dir() / "snaps/gpu02.json"));
        old["taken_at"] = "2024-06-11T00:00:00Z";
        std::ofstream(dir() / "bad/gpu02-old.json") << old.dump();
    }
    static void TearDownTestSuite() {
        delete s_dir;
        s_dir = nullptr;
    }
    static const fs::path& dir() { return s_dir->path(); }
    static RunResult fleet(std::vector<std::string> args) {
        args.insert(args.begin(), "fleet");
        return run_cudoctor(args);
    }
    static inline TempDir* s_dir = nullptr;
};

TEST_F(FleetCliTest, CheckWritesTheSnapshotUnderTheHostName) {
    const auto snap = json::parse(slurp(dir() / "snaps/gpu01.json"));
    EXPECT_EQ(snap["hostname"], "gpu01");
    EXPECT_EQ(snap["taken_at"], "2024-06-12T06:00:00Z");
    EXPECT_EQ(snap["schema"], 1);
    EXPECT_NE(std::find(snap["overrides"].begin(), snap["overrides"].end(), "CUDOCTOR_OVERRIDE_TIME=2024-06-12T06:00:00Z"),
              snap["overrides"].end());
    // Nothing but the five snapshots: no temporary file left behind.
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir() / "snaps")) files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files, (std::vector<std::string>{"gpu01.json", "gpu02.json", "gpu03.json", "gpu04.json", "gpu05.json"}));
}

TEST_F(FleetCliTest, CheckOutputIntoAMissingFolderFailsCleanly) {
    TempDir tmp;
    auto r = run_cudoctor(
        {"check", "--root", std::string(CUDOCTOR_ROOTS_DIR) + "/nouveau", "--json", "--output", (tmp.path() / "missing/x.json").string()});
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    const auto j = json::parse(r.out, nullptr, false);  // --json errors go where --json output goes
    EXPECT_EQ(j["error"]["code"], "I/O error") << r.out;
    EXPECT_EQ(j["error"]["message"], "cannot write " + (tmp.path() / "missing/x.json").string() + ": No such file or directory");
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_FALSE(fs::exists(tmp.path() / "missing"));
}

TEST_F(FleetCliTest, SummarisesTheFleetAndReportsEveryBadFile) {
    auto r = fleet({"--json", (dir() / "snaps").string(), (dir() / "bad").string()});
    ASSERT_EQ(r.exit_code, 1) << r.describe() << r.err;
    const auto j = json::parse(r.out);
    EXPECT_EQ(j["node_count"], 5);
    EXPECT_EQ(j["reference"]["kind"], "majority");
    EXPECT_EQ(j["newest"], "2024-06-12T06:00:00Z");

    // The majority is the desktop's configuration, held by gpu01–gpu03.
    const auto gpu01 = *find_by(j["nodes"], "name", "gpu01");
    for (const auto& layer : j["layers"]) {
        const std::string name = layer["layer"];
        EXPECT_EQ(layer["reference"], gpu01["layers"][name]) << name;
        EXPECT_GE(layer["agree"].get<int>(), 3) << name;
    }
    // gpu04 drifted in its driver (libraries newer than the module), gpu05 in several layers.
    const json* d4 = find_by(j["drift"], "node", "gpu04");
    ASSERT_NE(d4, nullptr) << j["drift"].dump(1);
    EXPECT_NE(find_by((*d4)["differences"], "layer", "driver"), nullptr);
    const json* d5 = find_by(j["drift"], "node", "gpu05");
    ASSERT_NE(d5, nullptr);
    EXPECT_NE(find_by((*d5)["differences"], "layer", "toolkits"), nullptr);
    EXPECT_EQ(find_by(j["drift"], "node", "gpu01"), nullptr);

    // The findings, grouped by rule: gpu04's driver error names gpu04 and no desktop node.
    bool driver_error = false;
    for (const auto& f : j["findings"]) {
        if (f["layer"] != "driver" || f["severity"] != "error") continue;
        EXPECT_EQ(f["nodes"], json::array({"gpu04"})) << f.dump();
        driver_error = true;
    }
    EXPECT_TRUE(driver_error) << j["findings"].dump(1);

    ASSERT_EQ(j["stale"].size(), 1u);
    EXPECT_EQ(j["stale"][0]["node"], "gpu05");
    EXPECT_EQ(j["stale"][0]["age_seconds"], 10 * 86400);

    ASSERT_EQ(j["unreadable"].size(), 3u) << j["unreadable"].dump(1);
    const json* cut = find_by(j["unreadable"], "file", (dir() / "bad/cut.json").string());
    ASSERT_NE(cut, nullptr);
    EXPECT_EQ((*cut)["code"], "truncated");
    const json* future = find_by(j["unreadable"], "file", (dir() / "bad/future.json").string());
    ASSERT_NE(future, nullptr);
    EXPECT_EQ((*future)["message"], "snapshot schema 2 is not supported (this cudoctor reads schema 1)");
    const json* dup = find_by(j["unreadable"], "code", "duplicate");
    ASSERT_NE(dup, nullptr);
    EXPECT_EQ((*dup)["file"], (dir() / "bad/gpu02-old.json").string());
}

TEST_F(FleetCliTest, TextAndMarkdownGroupTheNodes) {
    auto text = fleet({(dir() / "snaps").string()});
    EXPECT_EQ(text.exit_code, 1) << text.err;
    EXPECT_NE(text.out.find("cudoctor fleet: 5 nodes, 1 stale; 2 differ from the majority\n"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("[3/5]"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("\nStale snapshots (older than 7d before the newest)\n  gpu05  2024-06-02T06:00:00Z, 10d before the newest\n"),
              std::string::npos)
        << text.out;
    auto md = fleet({"--markdown", "--stale-after", "0", (dir() / "snaps").string()});
    EXPECT_EQ(md.exit_code, 1);
    EXPECT_NE(md.out.find("| layer | reference | nodes | other configurations |"), std::string::npos) << md.out;
    EXPECT_NE(md.out.find("### Findings by rule"), std::string::npos);
    EXPECT_EQ(md.out.find("Stale"), std::string::npos) << "--stale-after 0 turns the check off";
}

TEST_F(FleetCliTest, ComparesWithABaseline) {
    auto r = fleet({"--json", "--baseline", (dir() / "snaps/gpu04.json").string(), (dir() / "snaps").string()});
    ASSERT_EQ(r.exit_code, 1) << r.err;
    const auto j = json::parse(r.out);
    EXPECT_EQ(j["reference"]["node"], "gpu04");
    for (const char* n : {"gpu01", "gpu02", "gpu03", "gpu05"}) EXPECT_NE(find_by(j["drift"], "node", n), nullptr) << n;
    EXPECT_EQ(find_by(j["drift"], "node", "gpu04"), nullptr);
}

TEST_F(FleetCliTest, IdenticalHealthyNodesAreHealthy) {
    TempDir same;
    for (const char* n : {"gpu01", "gpu02", "gpu03"})
        fs::copy_file(dir() / "snaps" / (std::string(n) + ".json"), same.path() / (std::string(n) + ".json"));
    auto r = fleet({"--json", same.str()});
    const auto j = json::parse(r.out);
    EXPECT_TRUE(j["drift"].empty());
    EXPECT_TRUE(j["stale"].empty());
    bool errors = false;
    for (const auto& f : j["findings"]) errors |= f["severity"] == "error";
    EXPECT_EQ(r.exit_code, errors ? 1 : 0) << r.out;
}

TEST_F(FleetCliTest, BadArgumentsAreOneLine) {
    auto missing = fleet({(dir() / "nope").string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(missing.err, "cudoctor fleet: no such file or folder: " + (dir() / "nope").string() + "\n");
    auto json_error = fleet({"--json", "--stale-after", "soon", (dir() / "snaps").string()});
    EXPECT_EQ(json_error.exit_code, 2);
    EXPECT_EQ(json::parse(json_error.out)["error"]["message"], "--stale-after: not a duration like 7d, 36h, 3d12h or 0: soon");
    auto bad_baseline = fleet({"--baseline", (dir() / "bad/cut.json").string(), (dir() / "snaps").string()});
    EXPECT_EQ(bad_baseline.exit_code, 2);
    EXPECT_NE(bad_baseline.err.find("--baseline " + (dir() / "bad/cut.json").string() + ": truncated JSON"), std::string::npos)
        << bad_baseline.err;
}

}  // namespace
}  // namespace cudoctor::test
