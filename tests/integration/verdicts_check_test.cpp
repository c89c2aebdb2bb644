// check's verdict tells the truth about what a machine can run: a machine with no NVIDIA GPU, or
// a GPU without the nvidia driver, is said to run nothing on a GPU (text, --quiet, Markdown,
// JSON, exit 1), WSL2 with /dev/dxg is a GPU machine, and the readers of saved machines refuse
// what is not one (a verify report, {"schema": 1}, an empty folder as --root) with exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test::verdicts_check {
namespace {

using nlohmann::json;

std::string root(const std::string& scenario) { return std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario; }

/// `check --json` on a fixture; `expected_exit` -1: 0 or 1, as its findings say.
json check_json(const std::string& scenario, int expected_exit) {
    auto run = run_cudoctor({"check", "--json", "--root", root(scenario)});
    if (expected_exit >= 0) EXPECT_EQ(run.exit_code, expected_exit) << scenario << ": " << run.describe() << run.err;
    else EXPECT_TRUE(run.exit_code == 0 || run.exit_code == 1) << scenario << ": " << run.describe() << run.err;
    auto j = json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << run.out;
    return j;
}

/// Writes `text` into `dir`/`name` and returns the path.
std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) { return dir.write(name, text).string(); }

}  // namespace

TEST(VerdictsCheck, NoGpuMachinesAreToldTheyRunNothingOnAGpu) {
    struct Case {
        std::string scenario;
        std::string verdict;
    };
    // cpu-only-conda has no rule that fires: its verdict used to be "no problems found", exit 0.
    for (const auto& c : std::vector<Case>{
             {"cpu-only-conda", "✗ this machine can run nothing on a GPU: no NVIDIA GPU"},
             {"vmware-no-gpu",
              "✗ this machine can compile CUDA code but run nothing on a GPU: no NVIDIA GPU — 1 error: vm-without-gpu-passthrough"},
             {"nouveau", "✗ this machine can run nothing on a GPU: no NVIDIA driver loaded — "}}) {
        auto quiet = run_cudoctor({"check", "-q", "--root", root(c.scenario)});
        EXPECT_EQ(quiet.exit_code, 1) << c.scenario << ": " << quiet.describe() << quiet.err;
        EXPECT_TRUE(quiet.out.starts_with(c.verdict)) << c.scenario << ": " << quiet.out;

        auto text = run_cudoctor({"check", "--root", root(c.scenario)});
        EXPECT_EQ(text.exit_code, 1) << c.scenario;
        EXPECT_EQ(text.out.find("no problems found"), std::string::npos) << text.out;
        EXPECT_NE(text.out.find("  ✗ this machine can"), std::string::npos) << text.out;

        auto md = run_cudoctor({"check", "--markdown", "--root", root(c.scenario)});
        EXPECT_EQ(md.exit_code, 1) << c.scenario;
        EXPECT_EQ(md.out.find("No problems found"), std::string::npos) << md.out;
        EXPECT_NE(md.out.find("**this machine can"), std::string::npos) << md.out;
    }
    EXPECT_EQ(check_json("cpu-only-conda", 1)["verdict"]["cannot_run"], "no NVIDIA GPU");
    EXPECT_EQ(check_json("vmware-no-gpu", 1)["verdict"]["cannot_run"], "no NVIDIA GPU");
    EXPECT_EQ(check_json("nouveau", 1)["verdict"]["cannot_run"], "no NVIDIA driver loaded");
}

TEST(VerdictsCheck, MachinesThatRunCudaGetNoSuchVerdict) {
    auto healthy = check_json("ubuntu2204-rtx4060ti", 0);
    EXPECT_TRUE(healthy["verdict"]["cannot_run"].is_null()) << healthy["verdict"].dump();
    EXPECT_EQ(healthy["verdict"]["line"], "✓ no problems found");
    // A loaded module with no readable PCI bus proves nothing about the GPU: say less.
    EXPECT_TRUE(check_json("toolkits-repo-driver", -1)["verdict"]["cannot_run"].is_null());
    // Garbage in /proc/driver/nvidia/version and an unreadable PCI device: nothing proven either.
    auto broken = run_cudoctor({"check", "--json", "--root", root("broken-inputs")});
    EXPECT_TRUE(json::parse(broken.out)["verdict"]["cannot_run"].is_null()) << broken.out;
}

TEST(VerdictsCheck, TheVerdictSurvivesTheSnapshotRoundTrip) {
    auto run = run_cudoctor({"check", "--json", "--root", root("cpu-only-conda")});
    TempDir tmp;
    const auto file = write_file(tmp, "laptop.json", run.out);
    auto again = run_cudoctor({"check", "-q", "--snapshot", file});
    EXPECT_EQ(again.exit_code, 1) << again.describe() << again.err;
    EXPECT_TRUE(again.out.starts_with("✗ this machine can run nothing on a GPU: no NVIDIA GPU")) << again.out;
}

TEST(VerdictsCheck, Wsl2WithDxgAndNoPciDeviceIsAGpuMachine) {
    auto j = check_json("wsl2-dxg", 0);
    EXPECT_EQ(j["gpus"], json::array()) << "the fixture has no PCI device";
    EXPECT_TRUE(j["platform"]["wsl_gpu"].get<bool>()) << j["platform"].dump(1);
    bool dxg_evidence = false;
    for (const auto& e : j["platform"]["evidence"]) dxg_evidence = dxg_evidence || e["source"] == "/dev/dxg";
    EXPECT_TRUE(dxg_evidence) << j["platform"]["evidence"].dump(1);
    EXPECT_TRUE(j["verdict"]["cannot_run"].is_null()) << j["verdict"].dump();
    auto text = run_cudoctor({"check", "--root", root("wsl2-dxg")});
    EXPECT_EQ(text.out.find("run nothing on a GPU"), std::string::npos) << text.out;
}

TEST(VerdictsCheck, ReadersRefuseJsonThatIsNotAMachine) {
    TempDir tmp;
    auto machine = json::parse(run_cudoctor({"check", "--json", "--root", root("ubuntu2204-rtx4060ti")}).out);
    EXPECT_EQ(machine["kind"], "cudoctor-machine");

    struct Case {
        std::string name;
        std::string text;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"bare.json", R"({"schema": 1})", "not a cudoctor machine snapshot (`cudoctor check --json` writes one): no \"tool_version\""},
        {"verify.json", R"({"schema": 1, "tool_version": "0.1.0", "root": "/", "requested_level": 3, "levels": [], "verdict": "PASS"})",
         "not a cudoctor machine snapshot (`cudoctor check --json` writes one): it is a `cudoctor verify --json` report"},
        {"other.json", R"({"schema": 1, "kind": "cudoctor-fleet"})",
         "not a cudoctor machine snapshot (`cudoctor check --json` writes one): its \"kind\" is \"cudoctor-fleet\""},
    };
    for (const auto& c : cases) {
        const auto file = write_file(tmp, c.name, c.text);
        auto run = run_cudoctor({"check", "--snapshot", file});
        EXPECT_EQ(run.exit_code, 2) << c.name << ": " << run.describe() << run.out;
        EXPECT_EQ(run.err, "cudoctor check: " + file + ": " + c.message + "\n") << c.name;
        auto fleet = json::parse(run_cudoctor({"fleet", "--json", file}).out, nullptr, false);
        EXPECT_EQ(fleet["node_count"], 0) << c.name << ": " << fleet.dump(1);
        EXPECT_EQ(fleet["unreadable"][0]["message"], c.message) << c.name << ": " << fleet.dump(1);
    }
    // verify --snapshot refuses a machine snapshot (it is no verify report).
    const auto machine_file = write_file(tmp, "machine.json", machine.dump());
    EXPECT_EQ(run_cudoctor({"verify", "--snapshot", machine_file}).exit_code, 2);
    // …and a report with no level at all, which would read as a PASS of nothing.
    const auto empty_report = write_file(tmp, "empty-verify.json", cases[1].text);
    auto verify = run_cudoctor({"verify", "--snapshot", empty_report});
    EXPECT_EQ(verify.exit_code, 2) << verify.describe() << verify.out;
    EXPECT_EQ(verify.err, "cudoctor verify: " + empty_report + ": not a cudoctor verify report (no level in \"levels\")\n");

    // A snapshot written before "kind" existed still loads: it has every member of a machine.
    machine.erase("kind");
    const auto old_file = write_file(tmp, "old.json", machine.dump());
    auto old = run_cudoctor({"check", "-q", "--snapshot", old_file});
    EXPECT_EQ(old.exit_code, 0) << old.describe() << old.err;
    EXPECT_EQ(old.out, "✓ no problems found\n");
}

TEST(VerdictsCheck, RootThatIsNoMachineImageIsRefused) {
    TempDir empty;
    auto run = run_cudoctor({"check", "--root", empty.str()});
    EXPECT_EQ(run.exit_code, 2) << run.describe() << run.out;
    EXPECT_TRUE(run.out.empty()) << run.out;
    EXPECT_NE(run.err.find(empty.str() + ": not a machine image"), std::string::npos) << run.err;

    TempDir project;
    project.write("src/main.cpp", "int main() {}\n");
    EXPECT_EQ(run_cudoctor({"check", "--root", project.str()}).exit_code, 2);

    auto missing = run_cudoctor({"check", "--root", empty.str() + "/typo"});
    EXPECT_EQ(missing.exit_code, 2) << missing.describe() << missing.out;

    // Every fixture machine is a machine image.
    for (const auto& entry : std::filesystem::directory_iterator(CUDOCTOR_ROOTS_DIR)) {
        if (!entry.is_directory()) continue;
        auto r = run_cudoctor({"check", "-q", "--root", entry.path().string()});
        EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << entry.path() << ": " << r.describe() << r.err;
    }
}

TEST(VerdictsCheck, SavedSnapshotIsHeadedWithItsHostAndTime) {
    auto j = json::parse(run_cudoctor({"check", "--json", "--root", root("ubuntu2204-rtx4060ti")}).out);
    j["root"] = "/";  // as node07 itself wrote it
    j["hostname"] = "node07";
    j["taken_at"] = "2026-11-30T10:00:00Z";
    TempDir tmp;
    const auto file = write_file(tmp, "node07.json", j.dump());
    auto run = run_cudoctor({"check", "--snapshot", file});
    EXPECT_EQ(run.exit_code, 0) << run.describe() << run.err;
    const std::string first = run.out.substr(0, run.out.find('\n'));
    EXPECT_NE(first.find("CUDA stack of node07 (snapshot taken 2026-11-30T10:00:00Z, read from " + file + ")"), std::string::npos) << first;
    EXPECT_EQ(first.find("this machine"), std::string::npos) << first;
    auto md = run_cudoctor({"check", "--markdown", "--snapshot", file});
    EXPECT_NE(md.out.find("report on node07 (snapshot taken 2026-11-30T10:00:00Z"), std::string::npos) << md.out.substr(0, 300);

    j["hostname"] = "";
    j["taken_at"] = "";
    j["root"] = "/images/n8";
    const auto anonymous = write_file(tmp, "anonymous.json", j.dump());
    auto unknown = run_cudoctor({"check", "--snapshot", anonymous});
    EXPECT_NE(unknown.out.find("CUDA stack of an unknown host, image /images/n8 (snapshot taken at an unknown time"), std::string::npos)
        << unknown.out.substr(0, 300);
}

}  // namespace cudoctor::test::verdicts_check
