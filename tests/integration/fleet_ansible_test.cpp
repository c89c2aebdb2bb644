// The Ansible recipe of docs/fleet.md, for real: Debian's ansible-playbook runs the example
// playbook over an inventory of five hosts on this machine (local connection), each host
// probing its own fixture machine (--root through the cudoctor_root host variable); `fleet`
// then reads what the playbook fetched.
#include <unistd.h>

#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {
using nlohmann::json;
namespace fs = std::filesystem;

std::string on_path(const std::string& name) {
    for (const char* dir : {"/usr/local/bin", "/usr/bin", "/bin"})
        if (::access((fs::path(dir) / name).c_str(), X_OK) == 0) return (fs::path(dir) / name).string();
    return "";
}

TEST(FleetAnsible, PlaybookGathersSnapshotsThatFleetSummarises) {
    const std::string playbook_bin = on_path("ansible-playbook");
    if (playbook_bin.empty()) GTEST_SKIP() << "ansible-playbook is not installed (Debian: apt-get install ansible-core)";
    TempDir tmp;
    const std::string roots = CUDOCTOR_ROOTS_DIR;
    std::ofstream inv(tmp.path() / "inventory.ini");
    inv << "[gpu]\n";
    const std::vector<std::pair<std::string, std::string>> hosts{{"node01", "ubuntu2204-rtx4060ti"},
                                                                 {"node02", "ubuntu2204-rtx4060ti"},
                                                                 {"node03", "ubuntu2204-rtx4060ti"},
                                                                 {"node04", "driver-mismatch"},
                                                                 {"node05", "server-three-toolkits"}};
    for (const auto& [host, scenario] : hosts) inv << host << " cudoctor_root=" << roots << "/" << scenario << "\n";
    inv << "\n[gpu:vars]\nansible_connection=local\nansible_python_interpreter=/usr/bin/python3\ncudoctor_bin=" << CUDOCTOR_BINARY << "\n";
    inv.close();

    const std::string home = (tmp.path() / "home").string();
    fs::create_directories(home);
    const std::vector<std::string> env{"PATH=/usr/local/bin:/usr/bin:/bin",
                                       "HOME=" + home,
                                       "LANG=C.UTF-8",
                                       "LC_ALL=C.UTF-8",
                                       "ANSIBLE_HOME=" + home + "/.ansible",
                                       "ANSIBLE_LOCAL_TEMP=" + home + "/tmp",
                                       "ANSIBLE_REMOTE_TEMP=" + home + "/rtmp",
                                       "ANSIBLE_NOCOLOR=1",
                                       "ANSIBLE_FORCE_COLOR=0",
                                       "ANSIBLE_RETRY_FILES_ENABLED=0",
                                       "ANSIBLE_HOST_KEY_CHECKING=0",
                                       "ANSIBLE_GATHERING=explicit",
                                       "ANSIBLE_FORKS=5",
                                       "ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3",
                                       "ANSIBLE_DEPRECATION_WARNINGS=0",
                                       "ANSIBLE_LOCALHOST_WARNING=0",
                                       "NO_COLOR=1"};
    const std::string snaps = (tmp.path() / "snapshots").string();
    auto run =
        run_program(playbook_bin,
                    {"-i", (tmp.path() / "inventory.ini").string(), std::string(CUDOCTOR_SOURCE_DIR) + "/docs/examples/fleet/playbook.yml",
                     "-e", "fleet_dir=" + snaps, "-e", "snapshot_tmp=" + home},
                    env, std::chrono::seconds(180));
    ASSERT_EQ(run.exit_code, 0) << run.describe() << "\n" << run.out << run.err;

    for (const auto& [host, scenario] : hosts) {
        ASSERT_TRUE(fs::exists(snaps + "/" + host + ".json")) << host << "\n" << run.out;
        EXPECT_FALSE(fs::exists(home + "/cudoctor-snapshot-" + host + ".json")) << "the host's copy is removed";
    }

    auto fleet = run_cudoctor({"fleet", "--json", snaps});
    ASSERT_EQ(fleet.exit_code, 1) << fleet.describe() << fleet.err;
    const auto j = json::parse(fleet.out);
    EXPECT_EQ(j["node_count"], 5);
    EXPECT_TRUE(j["unreadable"].empty()) << j["unreadable"].dump();
    std::vector<std::string> drifted;
    for (const auto& d : j["drift"]) drifted.push_back(d["node"]);
    // The fixture images carry no host name: each node is named after its fetched file.
    EXPECT_EQ(drifted, (std::vector<std::string>{"node04", "node05"}));
    for (const auto& layer : j["layers"]) EXPECT_GE(layer["agree"].get<int>(), 3) << layer.dump();
}

}  // namespace
}  // namespace cudoctor::test
