// Shell start-up files on fixture machines: ubuntu2204-shell-rc-traps (a ~/.bashrc with the four
// traps, Ubuntu's nvidia-cuda-toolkit /usr/bin/nvcc) fires each rule once, naming the file and
// line; the fixes, run by the real bash and sed on a copy, clear them; the machines whose start-up
// files are right stay silent.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/json_query.hpp"
#include "support/mutable_root.hpp"
#include "support/temp_dir.hpp"

namespace shellrc_test {

using cudoctor::test::MutableRoot;
using nlohmann::json;

const std::string kTraps = "ubuntu2204-shell-rc-traps";
const std::string kBashrc = "/home/alice/.bashrc";
const std::vector<std::string> kIds = {"shell-rc-overwrites-ld-library-path", "shell-rc-appends-cuda-path", "cuda-launch-blocking-left-on",
                                       "shell-rc-names-missing-toolkit"};

std::vector<json> findings_of(const json& snap, const std::string& id) {
    std::vector<json> out;
    for (const auto& f : snap["findings"])
        if (f["id"] == id) out.push_back(f);
    return out;
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

TEST(ShellrcFixtures, EachTrapFiresOnceNamingItsLine) {
    const auto snap = MutableRoot(kTraps).check();
    const std::map<std::string, std::string> where = {{"shell-rc-appends-cuda-path", kBashrc + ":6"},
                                                      {"shell-rc-overwrites-ld-library-path", kBashrc + ":7"},
                                                      {"cuda-launch-blocking-left-on", kBashrc + ":9"},
                                                      {"shell-rc-names-missing-toolkit", kBashrc + ":11"}};
    for (const auto& [id, source] : where) {
        const auto found = findings_of(snap, id);
        ASSERT_EQ(found.size(), 1u) << id << "\n" << snap["findings"].dump(2);
        EXPECT_EQ(found[0]["severity"], "warning") << id;
        EXPECT_EQ(found[0]["evidence"][0]["source"], source) << id;
    }
    const auto appends = findings_of(snap, "shell-rc-appends-cuda-path")[0];
    EXPECT_NE(appends["title"].get<std::string>().find("/usr/bin/nvcc"), std::string::npos) << appends.dump(2);
    const auto blocking = findings_of(snap, "cuda-launch-blocking-left-on")[0];
    EXPECT_NE(blocking["fix"].get<std::string>().find("unset CUDA_LAUNCH_BLOCKING"), std::string::npos);
}

TEST(ShellrcFixtures, TheFixesRunByBashAndSedClearTheFindings) {
    MutableRoot copy(kTraps);
    cudoctor::test::TempDir dir;
    const auto before = copy.check();
    const std::string file = (copy.path() / kBashrc.substr(1)).string();
    for (const auto& id : kIds) {
        for (const auto& f : findings_of(before, id)) {
            std::istringstream lines(f["fix"].get<std::string>());
            std::string line;
            while (std::getline(lines, line)) {
                if (!line.starts_with("sed -i ")) continue;  // comments; `unset` is the shell's own
                const auto at = line.rfind(" " + kBashrc);
                ASSERT_NE(at, std::string::npos) << line;
                // The command exactly as printed, only the file moved into the copy, run by bash.
                const std::string cmd = line.substr(0, at) + " '" + file + "'\n";
                const auto script = dir.write("fix.sh", cmd);
                EXPECT_EQ(std::system(("/bin/bash '" + script.string() + "'").c_str()), 0) << cmd;
            }
        }
    }
    const std::string rc = slurp(file);
    EXPECT_NE(rc.find("\nexport PATH=/usr/local/cuda-12.4/bin${PATH:+:${PATH}}\n"), std::string::npos) << rc;
    EXPECT_NE(rc.find("\nexport LD_LIBRARY_PATH=/usr/local/cuda-12.4/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}\n"), std::string::npos)
        << rc;
    EXPECT_NE(rc.find("\n# export CUDA_LAUNCH_BLOCKING=1\n"), std::string::npos) << rc;
    EXPECT_NE(rc.find("\n# export PATH=/usr/local/cuda-11.2/bin:$PATH\n"), std::string::npos) << rc;
    copy.env("CUDA_LAUNCH_BLOCKING", std::nullopt);
    const auto after = copy.check();
    for (const auto& id : kIds) EXPECT_TRUE(findings_of(after, id).empty()) << id << "\n" << after["findings"].dump(2);
}

TEST(ShellrcFixtures, RightStartupFilesStaySilent) {
    // ~/.bashrc in the ${…:+…} form (the healthy machines), 11.8 pinned and 12.1 named by .zshrc
    // (both installed), /etc/profile.d/cuda.sh prepending, root's .profile sourcing inside an `if`.
    for (const std::string scenario : {"ubuntu2204-rtx4060ti", "ubuntu2204-cuda1262-runfile", "toolkits-repo-driver",
                                       "server-three-toolkits", "cpu-only-conda", "broken-inputs"}) {
        const auto snap = MutableRoot(scenario).check();
        for (const auto& id : kIds) EXPECT_TRUE(findings_of(snap, id).empty()) << scenario << " " << id;
    }
}

TEST(ShellrcFixtures, AppendedCudaIsSilentWithoutAnotherNvcc) {
    // The traps machine without Ubuntu's nvcc: appending CUDA after /usr/bin is then harmless.
    MutableRoot copy(kTraps);
    copy.remove("/usr/bin/nvcc");
    const auto snap = copy.check();
    EXPECT_TRUE(findings_of(snap, "shell-rc-appends-cuda-path").empty()) << snap["findings"].dump(2);
    EXPECT_EQ(findings_of(snap, "shell-rc-overwrites-ld-library-path").size(), 1u);
}

TEST(ShellrcFixtures, StartupLinesRoundTripThroughTheSnapshot) {
    const auto snap = MutableRoot(kTraps).check();
    const auto& lines = snap["environment"]["startup_lines"];
    ASSERT_EQ(lines.size(), 4u) << lines.dump(2);
    EXPECT_EQ(lines[0]["nvcc_before"], "/usr/bin/nvcc");
    // Replayed from the JSON, check gives the same findings.
    cudoctor::test::TempDir dir;
    const auto file = dir.write("snap.json", snap.dump());
    const auto replay = cudoctor::test::run_cudoctor({"check", "--snapshot", file.string(), "--json"});
    const auto again = json::parse(replay.out);
    for (const auto& id : kIds) EXPECT_EQ(findings_of(again, id).size(), 1u) << id;
    // A snapshot written before start-up files were read still loads: none, and silent.
    json old = snap;
    old["environment"].erase("startup_lines");
    old["environment"].erase("cuda_launch_blocking");
    old.erase("findings");
    const auto old_file = dir.write("old.json", old.dump());
    const auto old_run = cudoctor::test::run_cudoctor({"check", "--snapshot", old_file.string(), "--json"});
    ASSERT_TRUE(old_run.exit_code == 0 || old_run.exit_code == 1) << old_run.err;
    const auto old_again = json::parse(old_run.out);
    for (const auto& id : kIds) EXPECT_TRUE(findings_of(old_again, id).empty()) << id;
}

}  // namespace shellrc_test
