// The Slurm recipe of docs/fleet.md, for real: a one-node Slurm cluster (Debian's slurm-wlm,
// auth/none, its own slurm.conf, ports and spool folders in a temporary folder) is started by
// the test; srun runs `cudoctor check --json --output DIR/%h.json` (cudoctor names the file)
// and `srun --output DIR/%N.json cudoctor check --json` (srun names it); fleet reads the folder.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/files.hpp"
#include "support/mutable_root.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace cudoctor::test {
namespace {
using nlohmann::json;
namespace fs = std::filesystem;

std::string find_program(const std::string& name) {
    for (const char* dir : {"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin"})
        if (::access((fs::path(dir) / name).c_str(), X_OK) == 0) return (fs::path(dir) / name).string();
    return "";
}

int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

// A daemon started in the foreground (-D) by this test and stopped by its pid at the end.
class Daemon {
  public:
    Daemon(const std::vector<std::string>& argv, const std::vector<std::string>& env, const fs::path& log) {
        std::vector<char*> args, envp;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
        envp.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
        if (posix_spawn(&m_pid, args[0], &fa, nullptr, args.data(), envp.data()) != 0) m_pid = -1;
        posix_spawn_file_actions_destroy(&fa);
    }
    ~Daemon() {
        if (m_pid <= 0) return;
        ::kill(m_pid, SIGTERM);
        for (int i = 0; i < 50; ++i) {
            if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
    Daemon(const Daemon&) = delete;
    Daemon& operator=(const Daemon&) = delete;
    bool running() const { return m_pid > 0 && ::waitpid(m_pid, nullptr, WNOHANG) == 0; }

  private:
    pid_t m_pid = -1;
};

// A one-node cluster "fleetnode" in a temporary folder, up (idle) when constructed; `extra` is
// added to slurm.conf. The daemons stop when it goes, pass or fail.
class Cluster {
  public:
    explicit Cluster(const std::string& extra = "") {
        ::gethostname(m_host, sizeof m_host - 1);
        const fs::path conf = m_tmp.path() / "slurm.conf";
        fs::create_directories(m_tmp.path() / "state");
        fs::create_directories(m_tmp.path() / "spool");
        const int ctld_port = free_port(), d_port = free_port();
        if (ctld_port <= 0 || d_port <= 0 || ctld_port == d_port) return;
        const std::string t = m_tmp.str();
        std::ofstream(conf) << "ClusterName=cudoctortest\nSlurmctldHost=localhost(127.0.0.1)\n"
                            << "SlurmctldPort=" << ctld_port << "\nSlurmdPort=" << d_port << "\n"
                            << "AuthType=auth/none\nCredType=cred/none\nSlurmUser=root\nSlurmdUser=root\n"
                            << "StateSaveLocation=" << t << "/state\nSlurmdSpoolDir=" << t << "/spool\n"
                            << "SlurmctldPidFile=" << t << "/ctld.pid\nSlurmdPidFile=" << t << "/slurmd.pid\n"
                            << "ProctrackType=proctrack/pgid\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
                            << "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
                            << "SchedulerType=sched/builtin\nSelectType=select/linear\nMpiDefault=none\nSwitchType=switch/none\n"
                            << "ReturnToService=2\n"
                            << extra << "NodeName=fleetnode NodeHostname=" << m_host << " NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\n"
                            << "PartitionName=fleet Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
        m_env = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "SLURM_CONF=" + conf.string(), "LANG=C.UTF-8", "HOME=" + t,
                 "CUDOCTOR_OVERRIDE_TIME=2024-06-12T06:00:00Z"};
        m_ctld = std::make_unique<Daemon>(std::vector<std::string>{find_program("slurmctld"), "-D", "-i", "-f", conf.string()}, m_env,
                                          m_tmp.path() / "slurmctld.log");
        m_d = std::make_unique<Daemon>(std::vector<std::string>{find_program("slurmd"), "-D", "-N", "fleetnode", "-f", conf.string()},
                                       m_env, m_tmp.path() / "slurmd.log");
        // Up within 20 s, or the logs say why.
        for (int i = 0; i < 80 && !m_up; ++i) {
            m_up = state().starts_with("idle");
            if (!m_up) std::this_thread::sleep_for(std::chrono::milliseconds(250));
        }
    }
    bool up() const { return m_up; }
    /// sinfo's "%t|%E" for the node: "idle|none", "drain|cudoctor: driver-library-mismatch".
    std::string state() const {
        auto r = run_program(find_program("sinfo"), {"-h", "-o", "%t|%E", "-n", "fleetnode"}, m_env, std::chrono::seconds(5));
        return r.exit_code == 0 ? r.out.substr(0, r.out.find('\n')) : "";
    }
    std::string logs() const {
        return "slurmctld:\n" + slurp(m_tmp.path() / "slurmctld.log") + "\nslurmd:\n" + slurp(m_tmp.path() / "slurmd.log");
    }
    const TempDir& tmp() const { return m_tmp; }
    const std::vector<std::string>& env() const { return m_env; }
    const char* host() const { return m_host; }

  private:
    TempDir m_tmp;
    char m_host[256] = {};
    std::vector<std::string> m_env;
    std::unique_ptr<Daemon> m_ctld, m_d;
    bool m_up = false;
};

bool slurm_missing() {
    for (const char* p : {"slurmctld", "slurmd", "srun", "sinfo", "scontrol"})
        if (find_program(p).empty()) return true;
    return false;
}

TEST(FleetSlurm, SrunGathersSnapshotsThatFleetSummarises) {
    if (slurm_missing()) GTEST_SKIP() << "Slurm is not installed (Debian: apt-get install slurm-wlm)";
    if (::geteuid() != 0) GTEST_SKIP() << "a private slurmd must run as root (SlurmdUser=root); run the suite as root";
    Cluster cluster;
    ASSERT_TRUE(cluster.up()) << cluster.logs();
    const TempDir& tmp = cluster.tmp();
    const auto& env = cluster.env();
    const std::string srun = find_program("srun");
    const std::string host = cluster.host();

    const fs::path snaps = tmp.path() / "snapshots";
    fs::create_directories(snaps);
    auto srun_check = [&](const std::string& scenario, const std::string& name, std::vector<std::string> srun_args,
                          std::vector<std::string> check_args) {
        MutableRoot root(scenario);
        root.write("/etc/hostname", name + "\n");
        std::vector<std::string> args{"-N1", "--ntasks-per-node=1", "--partition=fleet"};
        args.insert(args.end(), srun_args.begin(), srun_args.end());
        args.insert(args.end(), {CUDOCTOR_BINARY, "check", "--root", root.path().string(), "--json"});
        args.insert(args.end(), check_args.begin(), check_args.end());
        auto r = run_program(srun, args, env, std::chrono::seconds(60));
        // Exit 1 is cudoctor's "findings"; srun passes the task's status on.
        EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.describe() << "\n" << r.out << r.err;
    };
    const std::string by_cudoctor = (snaps / "%h.json").string();
    srun_check("ubuntu2204-rtx4060ti", "node-a", {}, {"--output", by_cudoctor});
    srun_check("ubuntu2204-rtx4060ti", "node-b", {}, {"--output", by_cudoctor});
    srun_check("driver-mismatch", "node-c", {}, {"--output", by_cudoctor});
    srun_check("ubuntu2204-rtx4060ti", "node-d",
               {"--output", (snaps / "srun-%N.json").string(), "--error", (tmp.path() / "srun-%N.err").string()}, {});

    for (const char* f : {"node-a.json", "node-b.json", "node-c.json"}) EXPECT_TRUE(fs::exists(snaps / f)) << f;
    EXPECT_TRUE(fs::exists(snaps / (std::string("srun-") + host + ".json")));

    auto fleet = run_cudoctor({"fleet", "--json", snaps.string()});
    ASSERT_EQ(fleet.exit_code, 1) << fleet.describe() << fleet.err;
    const auto j = json::parse(fleet.out);
    EXPECT_EQ(j["node_count"], 4);
    EXPECT_TRUE(j["unreadable"].empty()) << j["unreadable"].dump();
    ASSERT_EQ(j["drift"].size(), 1u) << j["drift"].dump(1);
    EXPECT_EQ(j["drift"][0]["node"], "node-c");
}

// docs/examples/slurm/cudoctor-healthcheck.sh as slurm.conf's HealthCheckProgram, run by the real
// slurmd every 2 s. A small wrapper (what a site's /etc/default/cudoctor-healthcheck would set)
// points it at this cudoctor and at the machine image named in a file the test switches: a
// healthy image leaves the node up, a broken one drains it with the finding's id as the reason,
// a healthy one again resumes it; a node an administrator drained is left as it is.
TEST(FleetSlurm, HealthCheckDrainsABrokenNodeWithTheFindingIds) {
    if (slurm_missing()) GTEST_SKIP() << "Slurm is not installed (Debian: apt-get install slurm-wlm)";
    if (::geteuid() != 0) GTEST_SKIP() << "a private slurmd must run as root (SlurmdUser=root); run the suite as root";
    TempDir site;
    const std::string roots = CUDOCTOR_ROOTS_DIR;
    const auto image = site.write("image", roots + "/ubuntu2204-rtx4060ti");
    const auto runs = site.path() / "runs";
    // slurmd gives the program almost no environment: the wrapper sets what the cluster needs.
    // Until the cluster is up (its slurm.conf copied next to the wrapper) the wrapper does nothing:
    // scontrol without a configuration would wait for DNS and hold up slurmd's registration.
    const std::string s = site.str();
    std::string script = "#!/bin/sh\n";
    script += "[ -f '" + s + "/slurm.conf' ] || exit 0\n";
    script += "export SLURM_CONF='" + s + "/slurm.conf' CUDOCTOR='" + CUDOCTOR_BINARY + "'\n";
    script += "CUDOCTOR_HEALTHCHECK_ROOT=$(cat '" + image.string() + "') && export CUDOCTOR_HEALTHCHECK_ROOT\n";
    script += "'" + std::string(CUDOCTOR_SOURCE_DIR) + "/docs/examples/slurm/cudoctor-healthcheck.sh' 2>>'" + s + "/stderr'\n";
    script += "echo \"$CUDOCTOR_HEALTHCHECK_ROOT\" >> '" + runs.string() + "'\n";
    const auto wrapper = site.write("healthcheck.sh", script, true);
    Cluster cluster("HealthCheckProgram=" + wrapper.string() + "\nHealthCheckInterval=2\nHealthCheckNodeState=ANY\n");
    ASSERT_TRUE(cluster.up()) << cluster.logs();
    fs::copy_file(cluster.tmp().path() / "slurm.conf", site.path() / "slurm.conf");

    // Waits for two whole runs of the health check on `root` (the first may have started before
    // the switch), then returns the node's state.
    auto after_runs_on = [&](const std::string& root) {
        std::ofstream(image) << root;
        const std::size_t before = slurp(runs).size();
        for (int i = 0; i < 120; ++i) {
            const auto lines = slurp(runs).substr(before);
            std::size_t n = 0;
            for (std::size_t at = 0; (at = lines.find(root + "\n", at)) != std::string::npos; at += root.size()) ++n;
            if (n >= 2) return cluster.state();
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
        }
        return std::string("the health check did not run on ") + root;
    };
    auto scontrol = [&](const std::vector<std::string>& args) {
        auto r = run_program(find_program("scontrol"), args, cluster.env(), std::chrono::seconds(10));
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    };

    EXPECT_EQ(after_runs_on(roots + "/ubuntu2204-rtx4060ti"), "idle|none") << slurp(site.path() / "stderr") << cluster.logs();
    EXPECT_EQ(after_runs_on(roots + "/driver-mismatch"), "drain|cudoctor: driver-library-mismatch")
        << slurp(site.path() / "stderr") << cluster.logs();
    EXPECT_EQ(after_runs_on(roots + "/ubuntu2204-rtx4060ti"), "idle|none") << slurp(site.path() / "stderr");

    // An administrator's drain is theirs: a broken image does not rewrite it, a healthy one does
    // not resume it.
    scontrol({"update", "nodename=fleetnode", "state=drain", "reason=admin: memory test"});
    EXPECT_EQ(after_runs_on(roots + "/driver-mismatch"), "drain|admin: memory test");
    EXPECT_EQ(after_runs_on(roots + "/ubuntu2204-rtx4060ti"), "drain|admin: memory test");
    scontrol({"update", "nodename=fleetnode", "state=resume"});
}

}  // namespace
}  // namespace cudoctor::test
