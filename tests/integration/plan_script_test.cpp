// `plan` says what it really does: the driver step's title and its package come from one value
// on Debian 12 (Kepler's nvidia-tesla-470-driver, Ada's 580 open modules from NVIDIA's
// repository), a VM without a GPU is told why nothing is installed for the GPU, and the script
// stops at a failing check (run by the real bash with a fake nvidia-smi reporting an old driver).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/temp_dir.hpp"
#include "unit/installer_archives.hpp"

namespace cudoctor::test::plan_script {
namespace {

using nlohmann::json;

std::string root(const std::string& scenario) { return std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario; }

json plan_json(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"plan", "--json"};
    all.insert(all.end(), args.begin(), args.end());
    auto run = run_cudoctor(all);
    EXPECT_EQ(run.exit_code, 0) << run.describe() << "\n" << run.err << run.out;
    auto j = json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << run.out;
    return j;
}

const json* driver_step(const json& plan) {
    for (const auto& s : plan["steps"])
        if (s["layer"] == "driver") return &s;
    return nullptr;
}

std::string joined(const json& lines) {
    std::string out;
    for (const auto& c : lines) out += c.get<std::string>() + "\n";
    return out;
}

}  // namespace

TEST(PlanScript, KeplerOnDebian12GetsDebiansTesla470Driver) {
    // nouveau: a machine with no nvidia driver, so the plan has a driver step. A Tesla K80
    // (compute 3.7): torch 1.12's wheels carry sm_37, none carries sm_35.
    auto p = plan_json({"--root", root("nouveau"), "--gpu", "3.7", "--framework", "torch", "--os", "debian-12"});
    const json* step = driver_step(p);
    ASSERT_NE(step, nullptr) << p.dump(1);
    EXPECT_TRUE((*step)["title"].get<std::string>().starts_with("NVIDIA driver 470")) << (*step)["title"];
    const std::string cmds = joined((*step)["commands"]);
    EXPECT_NE(cmds.find("sudo apt-get install -y linux-headers-$(uname -r) nvidia-tesla-470-driver\n"), std::string::npos) << cmds;
    EXPECT_EQ(cmds.find(" nvidia-driver"), std::string::npos) << "Debian's nvidia-driver is 535: no Kepler\n" << cmds;
    EXPECT_EQ(cmds.find("cuda-drivers"), std::string::npos) << "NVIDIA's debian12 repository has no 470\n" << cmds;
    EXPECT_EQ(p["versions"]["driver_branch"], 470);
    for (const auto& c : p["chosen"]) {
        if (c["layer"] == "driver" && c["value"].get<std::string>().starts_with("branch")) {
            EXPECT_EQ(c["reason"].get<std::string>().find("the distribution's own driver branch"), std::string::npos)
                << "Debian 12's own branch is 535: " << c["reason"];
        }
    }

    // With compute 3.5 no torch wheel runs at all (1.12 starts at sm_37): refused, not a driver
    // for nothing. The toolkit-only recipe still installs the 470 driver from Debian.
    const auto refused =
        run_cudoctor({"plan", "--json", "--root", root("nouveau"), "--gpu", "3.5", "--framework", "torch", "--os", "debian-12"});
    EXPECT_EQ(refused.exit_code, 1) << refused.out;
    const json toolkit = plan_json({"--root", root("nouveau"), "--gpu", "3.5", "--os", "debian-12"});
    const json* tstep = driver_step(toolkit);
    ASSERT_NE(tstep, nullptr) << toolkit.dump(1);
    EXPECT_NE(joined((*tstep)["commands"]).find("nvidia-tesla-470-driver"), std::string::npos) << joined((*tstep)["commands"]);

    // Debian 13 packages no 470 (nvidia-tesla-470-driver ends with bookworm) and whether NVIDIA's
    // debian13 repository has cuda-drivers-470 is not known: no package is named.
    auto trixie = plan_json({"--root", root("nouveau"), "--gpu", "3.7", "--framework", "torch", "--os", "debian-13"});
    const json* tstep13 = driver_step(trixie);
    ASSERT_NE(tstep13, nullptr) << trixie.dump(1);
    const std::string cmds13 = joined((*tstep13)["commands"]);
    EXPECT_EQ(cmds13.find("cuda-drivers-470"), std::string::npos) << cmds13;
    EXPECT_EQ(cmds13.find("apt-get install"), std::string::npos) << cmds13;
    EXPECT_NE(cmds13.find("# no debian 13 package of NVIDIA driver branch 470 is known"), std::string::npos) << cmds13;

    // Ubuntu 22.04 has its own per-branch package.
    auto u = plan_json({"--root", root("nouveau"), "--gpu", "3.7", "--framework", "torch", "--os", "ubuntu-22.04"});
    const json* ustep = driver_step(u);
    ASSERT_NE(ustep, nullptr);
    EXPECT_TRUE((*ustep)["title"].get<std::string>().starts_with("NVIDIA driver 470")) << (*ustep)["title"];
    EXPECT_NE(joined((*ustep)["commands"]).find("sudo apt-get install -y nvidia-driver-470\n"), std::string::npos)
        << joined((*ustep)["commands"]);
}

TEST(PlanScript, AdaOnDebian12InstallsTheBranchItsTitleNames) {
    auto p = plan_json({"--root", root("nouveau"), "--gpu", "RTX 4090", "--framework", "torch==2.4", "--os", "debian-12"});
    const json* step = driver_step(p);
    ASSERT_NE(step, nullptr) << p.dump(1);
    const std::string title = (*step)["title"];
    const std::string cmds = joined((*step)["commands"]);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(title, m, std::regex("^NVIDIA driver ([0-9]+)( with the open kernel modules)?"))) << title;
    const std::string branch = m[1];
    const bool open = m[2].matched;
    // The package installs the branch (and module flavour) of the title: Debian's own
    // nvidia-driver is branch 535 (proprietary modules), NVIDIA's repository names its branch.
    const bool debians_own = cmds.find("install -y linux-headers-$(uname -r) nvidia-driver ") != std::string::npos;
    if (debians_own) {
        EXPECT_EQ(branch, "535") << title << "\n" << cmds;
        EXPECT_FALSE(open) << title;
    } else {
        EXPECT_NE(cmds.find(open ? "nvidia-open-" + branch : "cuda-drivers-" + branch), std::string::npos) << title << "\n" << cmds;
    }
    EXPECT_EQ(p["versions"]["driver_branch"], std::stoi(branch));
    // 535 supports Ada and runs torch 2.4's cu121 (≥ 530.30.02): Debian's own driver is the answer.
    EXPECT_TRUE(debians_own) << cmds;
}

TEST(PlanScript, VmWithoutGpuIsToldWhyNothingIsInstalledForTheGpu) {
    auto run = run_cudoctor({"plan", "--root", root("vmware-no-gpu"), "--gpu", "8.9", "--cuda", "12.4"});
    EXPECT_EQ(run.exit_code, 0) << run.describe() << run.err << run.out;
    EXPECT_EQ(run.out.find("already has the set"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("this vmware virtual machine sees no NVIDIA GPU: there is no GPU to install a driver for"), std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("pass the GPU through"), std::string::npos) << run.out;
}

TEST(PlanScript, ScriptStopsAtAFailingDriverCheck) {
    // nouveau: step 1 installs the driver and reboots; `bash plan.sh 2` opens with step 1's checks.
    auto run = run_cudoctor({"plan", "--root", root("nouveau"), "--framework", "torch==2.4", "--format", "script"});
    ASSERT_EQ(run.exit_code, 0) << run.describe() << run.err;
    ASSERT_NE(run.out.find("# ---- step 2:"), std::string::npos) << run.out;
    TempDir tmp;
    const auto script = tmp.write("plan.sh", run.out);
    const auto log = (tmp.path() / "calls.log").string();
    // Every command the later steps would run is recorded instead of run.
    const std::string recorder = "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> " + log + "\n";
    for (const char* tool : {"sudo", "apt-get", "pip", "pip3", "python", "python3", "wget", "curl", "dpkg"})
        tmp.write(std::string("bin/") + tool, recorder, true);
    // The driver there is 470: too old for CUDA 12.
    tmp.write("bin/nvidia-smi", "#!/bin/sh\ncase \"$*\" in *driver_version*) echo 470.256.02 ;; *) echo 'NVIDIA-SMI 470.256.02' ;; esac\n",
              true);
    const std::vector<std::string> env = {"PATH=" + (tmp.path() / "bin").string() + ":/usr/bin:/bin", "HOME=" + tmp.str()};

    auto after_reboot = run_program("/bin/bash", {script.string(), "2"}, env, std::chrono::seconds(30));
    EXPECT_EQ(after_reboot.exit_code, 1) << after_reboot.describe() << after_reboot.out << after_reboot.err;
    EXPECT_NE(after_reboot.err.find("cudoctor plan: step 1's check failed, stopping before step 2"), std::string::npos) << after_reboot.err;
    EXPECT_FALSE(std::filesystem::exists(log)) << "a later step ran:\n" << std::ifstream(log).rdbuf();
    EXPECT_EQ(after_reboot.out.find("every step done"), std::string::npos) << after_reboot.out;

    // With a new enough driver the same check passes and the script goes on (into the recorders).
    tmp.write("bin/nvidia-smi", "#!/bin/sh\ncase \"$*\" in *driver_version*) echo 580.95.05 ;; *) echo 'NVIDIA-SMI 580.95.05' ;; esac\n",
              true);
    auto good = run_program("/bin/bash", {script.string(), "2"}, env, std::chrono::seconds(30));
    EXPECT_EQ(good.err.find("step 1's check failed"), std::string::npos) << good.err;
    EXPECT_TRUE(std::filesystem::exists(log)) << good.describe() << good.out << good.err;
}

}  // namespace cudoctor::test::plan_script

// --- download → verify-installer → run -------------------------------------------------------------

namespace cudoctor::test::plan_script {

TEST(PlanScript, RunfileIsDownloadedResumablyVerifiedThenRun) {
    // CUDA 11.8 on Ubuntu 24.04: NVIDIA's repository has no cuda-toolkit-11-8, so the runfile.
    auto run = run_cudoctor({"plan", "--cuda", "11.8", "--os", "ubuntu-24.04", "--gpu", "8.9", "--fresh", "--format", "script"});
    ASSERT_EQ(run.exit_code, 0) << run.describe() << run.err;
    const std::string runfile = "cuda_11.8.0_520.61.05_linux.run";
    const auto wget = run.out.find("wget -c https://developer.download.nvidia.com/compute/cuda/11.8.0/local_installers/" + runfile + "\n");
    const auto verify = run.out.find("cudoctor verify-installer " + runfile + "\n");
    const auto install = run.out.find("sudo sh " + runfile + " --silent --toolkit");
    ASSERT_NE(wget, std::string::npos) << run.out;
    ASSERT_NE(verify, std::string::npos) << run.out;
    ASSERT_NE(install, std::string::npos) << run.out;
    EXPECT_LT(wget, verify);
    EXPECT_LT(verify, install);
    const auto step = run.out.rfind("# ---- step ", wget);
    ASSERT_NE(step, std::string::npos);
    const std::string step_number = run.out.substr(step + 12, run.out.find(':', step) - step - 12);

    // The "download": a real makeself installer; the fake wget copies it (or its first half) to the
    // file name of the URL in the working folder, as wget does. Everything else is recorded.
    TempDir tmp;
    const auto whole = make_makeself(tmp, "whole.run", {"--sha256"}, "CUDA Installer", "pkg");
    const auto half = tmp.path() / "half.run";
    std::filesystem::copy_file(whole, half);
    cut_tail(half, std::filesystem::file_size(whole) / 2);
    const auto script = tmp.write("plan.sh", run.out);
    const auto log = (tmp.path() / "calls.log").string();
    const std::string recorder = "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> " + log + "\n";
    for (const char* tool : {"sudo", "apt-get", "dpkg", "update-alternatives", "ldconfig"})
        tmp.write(std::string("bin/") + tool, recorder, true);
    // The whole file is NVIDIA's as far as this test goes: a --kb table publishes its SHA-256
    // under the runfile's name (the built-in table has NVIDIA's real one, which this file is not).
    const auto sha = tool({"/usr/bin/sha256sum", whole.string()}).substr(0, 64);
    tmp.write("kb/installer_checksums.tsv", "# source: this test\nfile\tkind\trelease\tsha256\tmd5\tsource\n" + runfile +
                                                "\tcuda-runfile\t11.8.0\t" + sha + "\t\tthis test\n");
    tmp.write("bin/cudoctor", "#!/bin/sh\nexec '" + std::string(CUDOCTOR_BINARY) + "' \"$@\" --kb '" + (tmp.path() / "kb").string() + "'\n",
              true);
    tmp.write("work/.keep", "");
    const std::vector<std::string> env = {"PATH=" + (tmp.path() / "bin").string() + ":/usr/bin:/bin", "HOME=" + tmp.str(), "LC_ALL=C"};
    const auto run_step = [&](const std::filesystem::path& download) {
        tmp.write("bin/wget",
                  "#!/bin/sh\nfor a; do url=$a; done\necho \"wget $*\" >> " + log + "\ncp '" + download.string() +
                      "' \"$(basename \"$url\")\"\n",
                  true);
        std::filesystem::remove(log);
        std::filesystem::remove(tmp.path() / "work" / runfile);
        return run_program("/bin/bash",
                           {"-c", "cd '" + (tmp.path() / "work").string() + "' && bash '" + script.string() + "' " + step_number}, env,
                           std::chrono::seconds(60));
    };
    const auto read_log = [&] {
        std::ifstream in(log);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };

    const auto cut = run_step(half);
    EXPECT_NE(cut.exit_code, 0) << cut.describe() << cut.out << cut.err;
    EXPECT_NE(cut.out.find("cut short"), std::string::npos) << cut.out << cut.err;
    EXPECT_NE(read_log().find("wget -c "), std::string::npos) << read_log();
    EXPECT_EQ(read_log().find("sh " + runfile), std::string::npos) << "a truncated runfile was run:\n" << read_log();
    EXPECT_EQ(cut.out.find("every step done"), std::string::npos);

    const auto good = run_step(whole);
    EXPECT_NE(read_log().find("sudo sh " + runfile + " --silent --toolkit"), std::string::npos)
        << good.describe() << good.out << good.err << read_log();
}

}  // namespace cudoctor::test::plan_script
