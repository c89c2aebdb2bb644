// Scenario tests: the real cudoctor binary on whole fixture machines (tests/fixtures/roots/<name>,
// built into CUDOCTOR_ROOTS_DIR by tests/fixtures/build_roots.sh), asserting the facts a correct
// `cudoctor check` must report about each machine. Each scenario's story is in
// tests/fixtures/README.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/run_cudoctor.hpp"
#include "support/json_query.hpp"

namespace cudoctor::test {
namespace {

using nlohmann::json;

const std::vector<std::string> kScenarios = {
    "ubuntu2204-rtx4060ti", "server-three-toolkits", "wsl2",          "vmware-no-gpu", "nouveau", "driver-mismatch",
    "cpu-only-conda",       "ubuntu2404-cuda118",    "broken-inputs",
};

std::string root_of(const std::string& scenario) { return std::string(CUDOCTOR_ROOTS_DIR) + "/" + scenario; }

/// Runs `cudoctor check --root <scenario root> <extra...>`; throws (a test failure) unless it ended
/// by itself with exit status 0 (healthy) or 1 (problems found).
RunResult run_check(const std::string& scenario, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"check", "--root", root_of(scenario)};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult run = run_cudoctor(args);
    if (run.exit_code != 0 && run.exit_code != 1) {
        throw std::runtime_error("cudoctor check on " + scenario + ": " + run.describe() + "\nstderr:\n" + run.err + "\nstdout:\n" +
                                 run.out.substr(0, 4000));
    }
    return run;
}

json parse(const RunResult& run, const std::string& what) {
    try {
        return json::parse(run.out);
    } catch (const json::exception& e) {
        throw std::runtime_error(what + ": stdout is not JSON (" + e.what() + "):\n" + run.out.substr(0, 4000) + "\nstderr:\n" + run.err);
    }
}

/// The snapshot of one scenario, from `check --root … --json`.
json check_json(const std::string& scenario) { return parse(run_check(scenario, {"--json"}), scenario); }

// ---- small queries over the JSON -----------------------------------------------------------------

const json* find_if(const json& array, const std::function<bool(const json&)>& pred) {
    if (!array.is_array()) return nullptr;
    for (const auto& item : array) {
        if (pred(item)) return &item;
    }
    return nullptr;
}

bool contains(const json& array, const json& value) {
    return array.is_array() && std::find(array.begin(), array.end(), value) != array.end();
}

bool starts_with(const json& value, const std::string& prefix) { return value.is_string() && value.get<std::string>().starts_with(prefix); }

bool has_substr(const json& value, const std::string& part) {
    return value.is_string() && value.get<std::string>().find(part) != std::string::npos;
}

std::string str(const json& value) { return value.dump(); }

/// The toolkit installed at `path`; a failed expectation (and nullptr) when there is none.
const json* toolkit_at(const json& snapshot, const std::string& path) {
    const json* tk = find_by(snapshot.at("toolkits"), "path", path);
    EXPECT_NE(tk, nullptr) << "no toolkit at " << path << " in " << str(snapshot.at("toolkits"));
    return tk;
}

void expect_no_errors(const json& snapshot) {
    for (const auto& f : snapshot.at("findings")) {
        EXPECT_NE(f.value("severity", ""), "error") << "unexpected error finding on a healthy machine: " << f.dump(2);
    }
}

void expect_no_stub_driver_libraries(const json& snapshot) {
    for (const auto& lib : snapshot.at("driver").at("libraries")) {
        EXPECT_FALSE(has_substr(lib.value("path", json()), "/stubs/"))
            << "the toolkit's link-time stub is not a driver library: " << lib.dump();
    }
}

// ===================================================================================================
// Every scenario: the run itself, the JSON contract, isolation from the real machine.
// ===================================================================================================

class EveryScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryScenario, ChecksAsJsonWithTheSchemaAndTheRoot) {
    const json s = check_json(GetParam());
    EXPECT_EQ(s.at("schema"), 1);
    EXPECT_EQ(s.at("root"), root_of(GetParam()));
    for (const char* key : {"gpus", "toolkits", "cudnn", "frameworks", "notes", "findings"}) {
        EXPECT_TRUE(s.at(key).is_array()) << key;
    }
    for (const char* key : {"driver", "environment", "platform"}) {
        EXPECT_TRUE(s.at(key).is_object()) << key;
    }
}

TEST_P(EveryScenario, NeverReadsTheRealMachine) {
    // The process environment names /usr/local/cuda-13.0 (which this machine really has) and
    // "real-machine" folders; a rooted run must take its environment from the root.
    json s = check_json(GetParam());
    s.erase("root");
    const std::string text = s.dump();
    for (const auto& marker : outside_markers()) {
        EXPECT_EQ(text.find(marker), std::string::npos) << "'" << marker << "' leaked into " << GetParam();
    }
    EXPECT_EQ(text.find(CUDOCTOR_ROOTS_DIR), std::string::npos) << "paths must be machine paths, never prefixed with the root folder";
}

TEST_P(EveryScenario, PathsHaveNoTrailingSlash) {
    const json s = check_json(GetParam());
    std::vector<std::pair<std::string, json>> paths;
    for (const auto& tk : s.at("toolkits")) {
        paths.emplace_back("toolkits[].path", tk.at("path"));
        paths.emplace_back("toolkits[].nvcc_path", tk.at("nvcc_path"));
    }
    for (const auto& c : s.at("cudnn")) paths.emplace_back("cudnn[].path", c.at("path"));
    for (const auto& f : s.at("frameworks")) paths.emplace_back("frameworks[].python", f.at("python"));
    for (const auto& l : s.at("driver").at("libraries")) paths.emplace_back("driver.libraries[].path", l.at("path"));
    const json& env = s.at("environment");
    paths.emplace_back("environment.cuda_symlink", env.at("cuda_symlink"));
    for (const auto& e : env.at("conda_envs")) paths.emplace_back("environment.conda_envs[]", e);
    paths.emplace_back("environment.active_conda_env", env.at("active_conda_env"));
    for (const auto& [what, value] : paths) {
        if (!value.is_string()) continue;
        const auto v = value.get<std::string>();
        EXPECT_FALSE(v.size() > 1 && v.back() == '/') << what << " = " << v;
    }
}

TEST_P(EveryScenario, TwoRunsGiveTheSameJson) {
    // Every fact but the clock: taken_at says when each run happened (a slow sanitizer run
    // crosses a second between the two).
    json first = check_json(GetParam()), second = check_json(GetParam());
    ASSERT_TRUE(first.contains("taken_at"));
    first.erase("taken_at");
    second.erase("taken_at");
    EXPECT_EQ(first, second);
}

TEST_P(EveryScenario, SnapshotRoundTripGivesTheSameJson) {
    const RunResult first = run_check(GetParam(), {"--json"});
    const json original = parse(first, GetParam());
    const auto file = std::filesystem::path(::testing::TempDir()) / ("cudoctor-snapshot-" + GetParam() + ".json");
    { std::ofstream(file) << first.out; }
    const RunResult again = run_cudoctor({"check", "--snapshot", file.string(), "--json"});
    std::filesystem::remove(file);
    ASSERT_TRUE(again.exit_code == 0 || again.exit_code == 1) << again.describe() << "\n" << again.err;
    EXPECT_EQ(again.exit_code, first.exit_code);
    EXPECT_EQ(parse(again, "check --snapshot"), original);
}

TEST_P(EveryScenario, TextAndMarkdownReportsRun) {
    const RunResult json_run = run_check(GetParam(), {"--json"});
    const RunResult text = run_check(GetParam());
    const RunResult markdown = run_check(GetParam(), {"--markdown"});
    EXPECT_EQ(text.exit_code, json_run.exit_code);
    EXPECT_EQ(markdown.exit_code, json_run.exit_code);
    EXPECT_FALSE(text.out.empty());
    EXPECT_FALSE(markdown.out.empty());
    EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << "no colour when stdout is not a terminal";
    for (const auto& marker : outside_markers()) {
        EXPECT_EQ(text.out.find(marker), std::string::npos) << marker;
        EXPECT_EQ(markdown.out.find(marker), std::string::npos) << marker;
    }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, EveryScenario, ::testing::ValuesIn(kScenarios), [](const ::testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
});

// ===================================================================================================
// ubuntu2204-rtx4060ti: the healthy desktop.
// ===================================================================================================

TEST(Ubuntu2204Rtx4060Ti, ExitsZeroWithoutErrors) {
    const RunResult run = run_check("ubuntu2204-rtx4060ti", {"--json"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    expect_no_errors(parse(run, "ubuntu2204-rtx4060ti"));
}

TEST(Ubuntu2204Rtx4060Ti, OneGpuAndNotItsAudioFunction) {
    const json s = check_json("ubuntu2204-rtx4060ti");
    ASSERT_EQ(s.at("gpus").size(), 1u) << str(s.at("gpus"));
    const json& gpu = s.at("gpus").at(0);
    EXPECT_EQ(gpu.at("bus_id"), "0000:01:00.0");
    EXPECT_EQ(gpu.at("pci_device_id"), "10de:2803");
    EXPECT_EQ(gpu.at("pci_class"), "0x030000");
    EXPECT_EQ(gpu.at("subsystem_id"), "1043:88ac");
    EXPECT_TRUE(has_substr(gpu.at("name"), "4060 Ti")) << gpu.at("name");
    EXPECT_EQ(gpu.at("compute_capability"), "8.9");
    EXPECT_EQ(gpu.at("architecture"), "Ada Lovelace");
    EXPECT_EQ(gpu.at("bound_driver"), "nvidia");
}

TEST(Ubuntu2204Rtx4060Ti, Driver550Proprietary) {
    const json d = check_json("ubuntu2204-rtx4060ti").at("driver");
    EXPECT_EQ(d.at("kernel_module_version"), "550.54.15");
    EXPECT_EQ(d.at("flavour"), "proprietary");
    EXPECT_TRUE(has_substr(d.at("kernel_module_compiler"), "12.3.0")) << d.at("kernel_module_compiler");
    EXPECT_EQ(d.at("modules_known"), true);
    for (const char* m : {"nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset"}) {
        EXPECT_TRUE(contains(d.at("loaded_modules"), m)) << m << " in " << str(d.at("loaded_modules"));
    }
    EXPECT_EQ(d.at("user_space_versions"), json::array({"550.54.15"}));
    const json* libcuda = find_by(d.at("libraries"), "name", "libcuda.so");
    ASSERT_NE(libcuda, nullptr) << str(d.at("libraries"));
    EXPECT_EQ(libcuda->at("version"), "550.54.15");
    EXPECT_TRUE(has_substr(libcuda->at("path"), "/x86_64-linux-gnu/libcuda.so")) << libcuda->at("path");
    const json* nvml = find_by(d.at("libraries"), "name", "libnvidia-ml.so");
    ASSERT_NE(nvml, nullptr) << str(d.at("libraries"));
    EXPECT_EQ(nvml->at("version"), "550.54.15");
    EXPECT_EQ(d.at("max_cuda"), "12.4");
    expect_no_stub_driver_libraries(check_json("ubuntu2204-rtx4060ti"));
}

TEST(Ubuntu2204Rtx4060Ti, RunfileToolkit124IsTheDefaultAndOnPath) {
    const json s = check_json("ubuntu2204-rtx4060ti");
    // The only real toolkit. The nvidia-cuda-runtime-cu12 wheel torch pulls in (a libcudart, no nvcc,
    // no headers to build with) may be listed as a "pip" toolkit, but never as more than that.
    json real = json::array();
    for (const auto& t : s.at("toolkits")) {
        if (t.value("install_method", "") != "pip") {
            real.push_back(t);
            continue;
        }
        EXPECT_TRUE(starts_with(t.at("path"), "/home/alice/.local/lib/python3.10/site-packages/nvidia")) << t.dump();
        EXPECT_EQ(t.at("has_nvcc"), false) << t.dump();
        EXPECT_EQ(t.at("is_default"), false) << t.dump();
    }
    ASSERT_EQ(real.size(), 1u) << str(s.at("toolkits"));
    const json& tk = real.at(0);
    EXPECT_EQ(tk.at("path"), "/usr/local/cuda-12.4");
    EXPECT_EQ(tk.at("version"), "12.4.131");
    EXPECT_EQ(tk.at("version_source"), "version.json");
    EXPECT_EQ(tk.at("install_method"), "runfile");
    EXPECT_EQ(tk.at("has_nvcc"), true);
    EXPECT_EQ(tk.at("nvcc_path"), "/usr/local/cuda-12.4/bin/nvcc");
    EXPECT_EQ(tk.at("is_default"), true);
    EXPECT_EQ(tk.at("first_on_path"), true);
    EXPECT_EQ(tk.at("on_path"), true);
    EXPECT_EQ(tk.at("max_gcc"), 13);
    EXPECT_EQ(tk.at("max_gcc_source"), "include/crt/host_config.h");
}

TEST(Ubuntu2204Rtx4060Ti, CudnnInTheToolkitAndFromPip) {
    const json cudnn = check_json("ubuntu2204-rtx4060ti").at("cudnn");
    const json* in_toolkit = find_by(cudnn, "location", "toolkit");
    ASSERT_NE(in_toolkit, nullptr) << str(cudnn);
    EXPECT_EQ(in_toolkit->at("version"), "9.1.0");
    EXPECT_EQ(in_toolkit->at("header_version"), "9.1.0");
    EXPECT_TRUE(contains(in_toolkit->at("library_versions"), "9.1.0")) << str(in_toolkit->at("library_versions"));
    EXPECT_TRUE(starts_with(in_toolkit->at("path"), "/usr/local/cuda-12.4/")) << in_toolkit->at("path");
    EXPECT_EQ(in_toolkit->at("cuda_major"), "12");
    EXPECT_EQ(in_toolkit->at("loader_visible"), true) << "its folder is on LD_LIBRARY_PATH";

    const json* from_pip = find_by(cudnn, "location", "pip");
    ASSERT_NE(from_pip, nullptr) << str(cudnn);
    EXPECT_TRUE(starts_with(from_pip->at("version"), "9.1.0")) << from_pip->at("version");
    EXPECT_TRUE(from_pip->at("version") == "9.1.0.70" || contains(from_pip->at("library_versions"), "9.1.0.70"))
        << "the wheel is nvidia-cudnn-cu12 9.1.0.70: " << from_pip->dump();
    EXPECT_TRUE(starts_with(from_pip->at("path"), "/home/alice/.local/lib/python3.10/site-packages/nvidia/cudnn")) << from_pip->at("path");
    EXPECT_EQ(from_pip->at("cuda_major"), "12");
    EXPECT_EQ(from_pip->at("loader_visible"), false) << "torch finds it by RPATH, the loader does not";
}

TEST(Ubuntu2204Rtx4060Ti, PipTorchCu121) {
    const json frameworks = check_json("ubuntu2204-rtx4060ti").at("frameworks");
    const json* torch = find_by(frameworks, "name", "torch");
    ASSERT_NE(torch, nullptr) << str(frameworks);
    EXPECT_EQ(torch->at("version"), "2.4.0+cu121");
    EXPECT_EQ(torch->at("cuda"), "12.1");
    EXPECT_EQ(torch->at("python"), "/home/alice/.local/lib/python3.10/site-packages");
    EXPECT_TRUE(contains(torch->at("nvidia_wheels"), "nvidia-cudnn-cu12==9.1.0.70")) << str(torch->at("nvidia_wheels"));
    EXPECT_TRUE(contains(torch->at("nvidia_wheels"), "nvidia-cuda-runtime-cu12==12.1.105")) << str(torch->at("nvidia_wheels"));
}

TEST(Ubuntu2204Rtx4060Ti, EnvironmentPathsAndLoader) {
    const json env = check_json("ubuntu2204-rtx4060ti").at("environment");
    ASSERT_FALSE(env.at("path").empty());
    EXPECT_EQ(env.at("path").at(0), "/usr/local/cuda-12.4/bin");
    EXPECT_EQ(env.at("nvcc_on_path"), json::array({"/usr/local/cuda-12.4/bin/nvcc"}));
    ASSERT_EQ(env.at("ld_library_path").size(), 1u) << str(env.at("ld_library_path"));
    const json& entry = env.at("ld_library_path").at(0);
    EXPECT_EQ(entry.at("path"), "/usr/local/cuda-12.4/lib64");
    EXPECT_EQ(entry.at("exists"), true);
    EXPECT_EQ(entry.at("empty"), false);
    EXPECT_TRUE(contains(entry.at("cuda_libraries"), "libcudart.so.12")) << str(entry.at("cuda_libraries"));
    EXPECT_TRUE(contains(entry.at("cuda_libraries"), "libcudnn.so.9")) << str(entry.at("cuda_libraries"));
    EXPECT_EQ(env.at("cuda_home"), nullptr);
    EXPECT_EQ(env.at("cuda_visible_devices"), nullptr);
    EXPECT_EQ(env.at("cuda_symlink"), "/usr/local/cuda-12.4");
    EXPECT_EQ(env.at("cuda_symlink_dangling"), false);
    EXPECT_TRUE(contains(env.at("ld_so_conf_dirs"), "/usr/lib/x86_64-linux-gnu")) << str(env.at("ld_so_conf_dirs"));
    EXPECT_EQ(env.at("loader_cache_format"), "new");
    const json* libcuda = find_by(env.at("loader_cache"), "soname", "libcuda.so.1");
    ASSERT_NE(libcuda, nullptr) << str(env.at("loader_cache"));
    EXPECT_TRUE(has_substr(libcuda->at("path"), "/x86_64-linux-gnu/libcuda.so.1")) << libcuda->at("path");
    EXPECT_EQ(libcuda->at("arch"), "x86-64");
    EXPECT_EQ(find_by(env.at("loader_cache"), "soname", "libcudart.so.12"), nullptr)
        << "the runfile writes no ld.so.conf.d entry; only LD_LIBRARY_PATH reaches the toolkit";
    EXPECT_EQ(env.at("active_conda_env"), nullptr);
    EXPECT_EQ(env.at("virtual_env"), nullptr);
}

TEST(Ubuntu2204Rtx4060Ti, Platform) {
    const json p = check_json("ubuntu2204-rtx4060ti").at("platform");
    EXPECT_EQ(p.at("os_id"), "ubuntu");
    EXPECT_EQ(p.at("os_version"), "22.04");
    EXPECT_EQ(p.at("os_pretty"), "Ubuntu 22.04.4 LTS");
    EXPECT_EQ(p.at("kernel"), "6.5.0-27-generic");
    EXPECT_EQ(p.at("arch"), "x86_64");
    EXPECT_EQ(p.at("glibc"), "2.35");
    EXPECT_EQ(p.at("gcc_default"), 11);
    EXPECT_TRUE(contains(p.at("gcc_installed"), 11)) << str(p.at("gcc_installed"));
    EXPECT_TRUE(contains(p.at("gcc_installed"), 12)) << str(p.at("gcc_installed"));
    EXPECT_EQ(p.at("wsl"), false);
    EXPECT_EQ(p.at("container"), "");
    EXPECT_EQ(p.at("virtualization"), "");
    EXPECT_EQ(p.at("secure_boot"), "disabled");
    const json* running = find_if(p.at("dkms"), [](const json& m) { return m.value("kernel", "") == "6.5.0-27-generic"; });
    ASSERT_NE(running, nullptr) << str(p.at("dkms"));
    EXPECT_EQ(running->at("module"), "nvidia");
    EXPECT_EQ(running->at("version"), "550.54.15");
    EXPECT_EQ(running->at("built_for_running_kernel"), true);
    const json* older = find_if(p.at("dkms"), [](const json& m) { return m.value("kernel", "") == "6.5.0-26-generic"; });
    ASSERT_NE(older, nullptr) << str(p.at("dkms"));
    EXPECT_EQ(older->at("built_for_running_kernel"), false);
}

TEST(Ubuntu2204Rtx4060Ti, TextAndMarkdownCarryTheKeyFacts) {
    for (const std::vector<std::string>& extra : {std::vector<std::string>{}, std::vector<std::string>{"--markdown"}}) {
        const RunResult run = run_check("ubuntu2204-rtx4060ti", extra);
        for (const char* fact : {"4060 Ti", "550.54.15", "12.4.131", "/usr/local/cuda-12.4", "9.1.0", "2.4.0+cu121", "Ubuntu 22.04"}) {
            EXPECT_NE(run.out.find(fact), std::string::npos)
                << "'" << fact << "' missing from the " << (extra.empty() ? "text" : "markdown") << " report:\n"
                << run.out;
        }
    }
}

// ===================================================================================================
// server-three-toolkits: 2x A100, three deb toolkits, the default is not the first on PATH.
// ===================================================================================================

TEST(ServerThreeToolkits, TwoA100sAndNotTheBmcVga) {
    const json gpus = check_json("server-three-toolkits").at("gpus");
    ASSERT_EQ(gpus.size(), 2u) << str(gpus);
    for (const char* bus : {"0000:17:00.0", "0000:ca:00.0"}) {
        const json* gpu = find_by(gpus, "bus_id", bus);
        ASSERT_NE(gpu, nullptr) << bus << " in " << str(gpus);
        EXPECT_EQ(gpu->at("pci_device_id"), "10de:20b2");
        EXPECT_EQ(gpu->at("pci_class"), "0x030200");
        EXPECT_TRUE(has_substr(gpu->at("name"), "A100")) << gpu->at("name");
        EXPECT_EQ(gpu->at("compute_capability"), "8.0");
        EXPECT_EQ(gpu->at("bound_driver"), "nvidia");
    }
}

TEST(ServerThreeToolkits, ServerDriver550) {
    const json d = check_json("server-three-toolkits").at("driver");
    EXPECT_EQ(d.at("kernel_module_version"), "550.90.07");
    EXPECT_EQ(d.at("flavour"), "proprietary");
    EXPECT_EQ(d.at("user_space_versions"), json::array({"550.90.07"}));
    EXPECT_TRUE(contains(d.at("loaded_modules"), "nvidia_peermem")) << str(d.at("loaded_modules"));
    EXPECT_EQ(d.at("max_cuda"), "12.4");
}

TEST(ServerThreeToolkits, ThreeDebToolkitsNotCountingTheirAliases) {
    const json s = check_json("server-three-toolkits");
    // /usr/local/cuda, /usr/local/cuda-11 and /usr/local/cuda-12 are alternatives links to these
    ASSERT_EQ(s.at("toolkits").size(), 3u) << str(s.at("toolkits"));
    struct Expect {
        const char* path;
        const char* version;
        bool is_default;
        bool first_on_path;
        bool on_path;
        int max_gcc;
    };
    for (const Expect& e : {Expect{"/usr/local/cuda-11.8", "11.8.89", false, true, true, 11},
                            Expect{"/usr/local/cuda-12.1", "12.1.105", true, false, true, 12},
                            Expect{"/usr/local/cuda-12.4", "12.4.131", false, false, false, 13}}) {
        const json* tk = toolkit_at(s, e.path);
        if (tk == nullptr) continue;
        SCOPED_TRACE(e.path);
        EXPECT_EQ(tk->at("version"), e.version);
        EXPECT_EQ(tk->at("install_method"), "deb");
        EXPECT_EQ(tk->at("has_nvcc"), true);
        EXPECT_EQ(tk->at("nvcc_path"), std::string(e.path) + "/bin/nvcc");
        EXPECT_EQ(tk->at("is_default"), e.is_default);
        EXPECT_EQ(tk->at("first_on_path"), e.first_on_path);
        EXPECT_EQ(tk->at("on_path"), e.on_path);
        EXPECT_EQ(tk->at("max_gcc"), e.max_gcc);
    }
}

TEST(ServerThreeToolkits, EnvironmentAndLoader) {
    const json env = check_json("server-three-toolkits").at("environment");
    EXPECT_EQ(env.at("path"), json::array({"/usr/local/cuda-11.8/bin", "/usr/local/cuda/bin", "/usr/bin", "/bin"}));
    ASSERT_EQ(env.at("nvcc_on_path").size(), 2u) << str(env.at("nvcc_on_path"));
    EXPECT_EQ(env.at("nvcc_on_path").at(0), "/usr/local/cuda-11.8/bin/nvcc");
    EXPECT_TRUE(env.at("nvcc_on_path").at(1) == "/usr/local/cuda/bin/nvcc" || env.at("nvcc_on_path").at(1) == "/usr/local/cuda-12.1/bin/nvcc")
        << env.at("nvcc_on_path").at(1);
    EXPECT_EQ(env.at("cuda_home"), "/usr/local/cuda-12.1");
    EXPECT_EQ(env.at("cuda_symlink"), "/usr/local/cuda-12.1");
    EXPECT_EQ(env.at("cuda_symlink_dangling"), false);
    EXPECT_TRUE(env.at("ld_library_path").empty()) << str(env.at("ld_library_path"));
    for (const char* dir : {"/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda-12/targets/x86_64-linux/lib",
                            "/usr/local/cuda-11/targets/x86_64-linux/lib", "/usr/lib/x86_64-linux-gnu"}) {
        EXPECT_TRUE(contains(env.at("ld_so_conf_dirs"), dir)) << dir << " in " << str(env.at("ld_so_conf_dirs"));
    }
    const auto count = [&](const char* soname) {
        return std::count_if(env.at("loader_cache").begin(), env.at("loader_cache").end(),
                             [&](const json& e) { return e.value("soname", "") == soname; });
    };
    EXPECT_EQ(count("libcudart.so.12"), 2) << "12.1 through /usr/local/cuda, 12.4 through /usr/local/cuda-12";
    EXPECT_EQ(count("libcudart.so.11.0"), 1);
}

TEST(ServerThreeToolkits, PlatformWithoutDkms) {
    const json p = check_json("server-three-toolkits").at("platform");
    EXPECT_EQ(p.at("os_version"), "22.04");
    EXPECT_EQ(p.at("kernel"), "5.15.0-107-generic");
    EXPECT_TRUE(p.at("dkms").empty()) << "Ubuntu's precompiled signed modules, no DKMS: " << str(p.at("dkms"));
    EXPECT_EQ(p.at("virtualization"), "");
    EXPECT_EQ(p.at("secure_boot"), "disabled");
    EXPECT_EQ(p.at("gcc_default"), 11);
}

// ===================================================================================================
// wsl2: the driver lives in Windows; no module, no NVIDIA PCI device, and that is normal.
// ===================================================================================================

TEST(Wsl2, IsWslWithTheWindowsDriverLibraries) {
    const json s = check_json("wsl2");
    EXPECT_EQ(s.at("platform").at("wsl"), true);
    EXPECT_EQ(s.at("platform").at("kernel"), "5.15.153.1-microsoft-standard-WSL2");
    EXPECT_EQ(s.at("platform").at("os_id"), "ubuntu");
    const json& d = s.at("driver");
    EXPECT_EQ(d.at("kernel_module_version"), "");
    EXPECT_EQ(d.at("modules_known"), true);
    EXPECT_FALSE(contains(d.at("loaded_modules"), "nvidia"));
    const json* libcuda = find_by(d.at("libraries"), "name", "libcuda.so");
    ASSERT_NE(libcuda, nullptr) << str(d.at("libraries"));
    EXPECT_TRUE(starts_with(libcuda->at("path"), "/usr/lib/wsl/lib/")) << libcuda->at("path");
    const json* nvml = find_by(d.at("libraries"), "name", "libnvidia-ml.so");
    ASSERT_NE(nvml, nullptr) << str(d.at("libraries"));
    EXPECT_TRUE(starts_with(nvml->at("path"), "/usr/lib/wsl/lib/")) << nvml->at("path");
    expect_no_stub_driver_libraries(s);
}

TEST(Wsl2, TheVirtualGpuIsNotAnNvidiaGpu) {
    const json gpus = check_json("wsl2").at("gpus");
    EXPECT_EQ(find_if(gpus, [](const json& g) { return starts_with(g.value("pci_device_id", json()), "1414:"); }), nullptr)
        << "the Microsoft GPU-PV device (1414:008e, dxgkrnl) is no CUDA GPU: " << str(gpus);
    EXPECT_EQ(find_by(gpus, "bound_driver", "dxgkrnl"), nullptr) << str(gpus);
}

TEST(Wsl2, NulSeparatedEnvironmentAndWslLoaderPath) {
    const json s = check_json("wsl2");
    const json& env = s.at("environment");
    ASSERT_EQ(env.at("path").size(), 15u) << str(env.at("path"));
    EXPECT_EQ(env.at("path").at(0), "/usr/local/cuda-12.4/bin");
    EXPECT_EQ(env.at("path").at(14), "/mnt/c/Users/dev/AppData/Local/Microsoft/WindowsApps");
    ASSERT_EQ(env.at("ld_library_path").size(), 1u) << str(env.at("ld_library_path"));
    EXPECT_EQ(env.at("ld_library_path").at(0).at("path"), "/usr/local/cuda-12.4/lib64");
    EXPECT_TRUE(contains(env.at("ld_so_conf_dirs"), "/usr/lib/wsl/lib")) << str(env.at("ld_so_conf_dirs"));
    const json* libcuda = find_by(env.at("loader_cache"), "soname", "libcuda.so.1");
    ASSERT_NE(libcuda, nullptr) << str(env.at("loader_cache"));
    EXPECT_EQ(libcuda->at("path"), "/usr/lib/wsl/lib/libcuda.so.1");
}

TEST(Wsl2, DebToolkitFromTheWslRepository) {
    const json s = check_json("wsl2");
    ASSERT_EQ(s.at("toolkits").size(), 1u) << str(s.at("toolkits"));
    const json& tk = s.at("toolkits").at(0);
    EXPECT_EQ(tk.at("path"), "/usr/local/cuda-12.4");
    EXPECT_EQ(tk.at("version"), "12.4.131");
    EXPECT_EQ(tk.at("install_method"), "deb");
    EXPECT_EQ(tk.at("is_default"), true);
    EXPECT_EQ(tk.at("first_on_path"), true);
}

// ===================================================================================================
// vmware-no-gpu: a VMware guest with a toolkit but no GPU and no driver.
// ===================================================================================================

TEST(VmwareNoGpu, VirtualMachineWithoutGpuOrDriver) {
    const json s = check_json("vmware-no-gpu");
    EXPECT_EQ(s.at("platform").at("virtualization"), "vmware");
    EXPECT_EQ(s.at("platform").at("wsl"), false);
    EXPECT_EQ(s.at("platform").at("secure_boot"), "unsupported") << "legacy BIOS boot: no /sys/firmware/efi";
    EXPECT_TRUE(s.at("gpus").empty()) << "the VMware SVGA adapter is no CUDA GPU: " << str(s.at("gpus"));
    const json& d = s.at("driver");
    EXPECT_EQ(d.at("kernel_module_version"), "");
    EXPECT_EQ(d.at("flavour"), "");
    EXPECT_TRUE(d.at("user_space_versions").empty()) << str(d.at("user_space_versions"));
    EXPECT_TRUE(d.at("libraries").empty()) << "lib/stubs/libcuda.so is not a driver: " << str(d.at("libraries"));
    EXPECT_EQ(d.at("modules_known"), true);
    EXPECT_FALSE(contains(d.at("loaded_modules"), "nvidia"));
}

TEST(VmwareNoGpu, ToolkitInstalledAnyway) {
    const json s = check_json("vmware-no-gpu");
    ASSERT_EQ(s.at("toolkits").size(), 1u) << str(s.at("toolkits"));
    const json& tk = s.at("toolkits").at(0);
    EXPECT_EQ(tk.at("path"), "/usr/local/cuda-12.4");
    EXPECT_EQ(tk.at("version"), "12.4.131");
    EXPECT_EQ(tk.at("install_method"), "deb");
    EXPECT_EQ(tk.at("is_default"), true);
    EXPECT_EQ(tk.at("on_path"), true) << "PATH ends with /usr/local/cuda/bin";
}

// ===================================================================================================
// nouveau: an RTX 3080 driven by nouveau; the NVIDIA driver is not there at all.
// ===================================================================================================

TEST(Nouveau, GpuBoundToNouveau) {
    const json gpus = check_json("nouveau").at("gpus");
    ASSERT_EQ(gpus.size(), 1u) << str(gpus);
    const json& gpu = gpus.at(0);
    EXPECT_EQ(gpu.at("bus_id"), "0000:2b:00.0");
    EXPECT_EQ(gpu.at("pci_device_id"), "10de:2206");
    EXPECT_TRUE(has_substr(gpu.at("name"), "3080")) << gpu.at("name");
    EXPECT_EQ(gpu.at("compute_capability"), "8.6");
    EXPECT_EQ(gpu.at("bound_driver"), "nouveau");
}

TEST(Nouveau, NoNvidiaDriver) {
    const json s = check_json("nouveau");
    const json& d = s.at("driver");
    EXPECT_EQ(d.at("kernel_module_version"), "");
    EXPECT_EQ(d.at("flavour"), "");
    EXPECT_EQ(d.at("modules_known"), true);
    EXPECT_TRUE(contains(d.at("loaded_modules"), "nouveau")) << str(d.at("loaded_modules"));
    EXPECT_FALSE(contains(d.at("loaded_modules"), "nvidia")) << str(d.at("loaded_modules"));
    EXPECT_TRUE(d.at("user_space_versions").empty());
    EXPECT_TRUE(d.at("libraries").empty());
    EXPECT_EQ(s.at("platform").at("secure_boot"), "enabled");
    EXPECT_TRUE(s.at("platform").at("dkms").empty());
    EXPECT_TRUE(s.at("toolkits").empty());
    EXPECT_TRUE(s.at("cudnn").empty());
    EXPECT_TRUE(s.at("frameworks").empty());
}

// ===================================================================================================
// driver-mismatch: module 535 still loaded, user space already 545 (upgrade without reboot).
// ===================================================================================================

TEST(DriverMismatch, KernelModuleAndUserSpaceDiffer) {
    const json s = check_json("driver-mismatch");
    const json& d = s.at("driver");
    EXPECT_EQ(d.at("kernel_module_version"), "535.183.01");
    EXPECT_EQ(d.at("flavour"), "proprietary");
    EXPECT_EQ(d.at("user_space_versions"), json::array({"545.29.06"}));
    const json* libcuda = find_by(d.at("libraries"), "name", "libcuda.so");
    ASSERT_NE(libcuda, nullptr) << str(d.at("libraries"));
    EXPECT_EQ(libcuda->at("version"), "545.29.06");
    const json* nvml = find_by(d.at("libraries"), "name", "libnvidia-ml.so");
    ASSERT_NE(nvml, nullptr) << str(d.at("libraries"));
    EXPECT_EQ(nvml->at("version"), "545.29.06");
}

TEST(DriverMismatch, GpuAndTheNewDkmsBuild) {
    const json s = check_json("driver-mismatch");
    ASSERT_EQ(s.at("gpus").size(), 1u) << str(s.at("gpus"));
    EXPECT_EQ(s.at("gpus").at(0).at("pci_device_id"), "10de:2484");
    EXPECT_TRUE(has_substr(s.at("gpus").at(0).at("name"), "3070"));
    const json* built = find_by(s.at("platform").at("dkms"), "version", "545.29.06");
    ASSERT_NE(built, nullptr) << str(s.at("platform").at("dkms"));
    EXPECT_EQ(built->at("kernel"), "6.5.0-41-generic");
    EXPECT_EQ(built->at("built_for_running_kernel"), true);
}

// ===================================================================================================
// cpu-only-conda: no NVIDIA GPU; CUDA 11.3 runtime, cuDNN 8.2.1 and torch 1.12.1 from conda.
// ===================================================================================================

TEST(CpuOnlyConda, NoGpuNoDriver) {
    const json s = check_json("cpu-only-conda");
    EXPECT_TRUE(s.at("gpus").empty()) << "the Intel iGPU is no CUDA GPU: " << str(s.at("gpus"));
    EXPECT_EQ(s.at("driver").at("kernel_module_version"), "");
    EXPECT_TRUE(s.at("driver").at("libraries").empty()) << str(s.at("driver").at("libraries"));
}

TEST(CpuOnlyConda, CondaToolkitCudnnAndTorch) {
    const json s = check_json("cpu-only-conda");
    const json* tk = find_by(s.at("toolkits"), "install_method", "conda");
    ASSERT_NE(tk, nullptr) << str(s.at("toolkits"));
    EXPECT_EQ(tk->at("path"), "/home/bob/miniconda3/envs/ml");
    EXPECT_TRUE(starts_with(tk->at("version"), "11.3")) << tk->at("version");
    EXPECT_EQ(tk->at("has_nvcc"), false) << "the cudatoolkit package has no nvcc";

    const json* cudnn = find_by(s.at("cudnn"), "location", "conda");
    ASSERT_NE(cudnn, nullptr) << str(s.at("cudnn"));
    EXPECT_EQ(cudnn->at("version"), "8.2.1");
    EXPECT_EQ(cudnn->at("cuda_major"), "11");
    EXPECT_TRUE(starts_with(cudnn->at("path"), "/home/bob/miniconda3/envs/ml/")) << cudnn->at("path");
    EXPECT_EQ(cudnn->at("loader_visible"), false);

    const json* torch = find_by(s.at("frameworks"), "name", "torch");
    ASSERT_NE(torch, nullptr) << str(s.at("frameworks"));
    EXPECT_EQ(torch->at("version"), "1.12.1");
    EXPECT_EQ(torch->at("cuda"), "11.3");
    EXPECT_EQ(torch->at("python"), "/home/bob/miniconda3/envs/ml/lib/python3.9/site-packages");
}

TEST(CpuOnlyConda, ActiveCondaEnvironment) {
    const json env = check_json("cpu-only-conda").at("environment");
    EXPECT_EQ(env.at("active_conda_env"), "/home/bob/miniconda3/envs/ml");
    EXPECT_TRUE(contains(env.at("conda_envs"), "/home/bob/miniconda3/envs/ml")) << str(env.at("conda_envs"));
    EXPECT_EQ(env.at("virtual_env"), nullptr);
    EXPECT_TRUE(env.at("nvcc_on_path").empty()) << str(env.at("nvcc_on_path"));
}

// ===================================================================================================
// ubuntu2404-cuda118: gcc 13 by default, CUDA 11.8 accepts gcc <= 11 only.
// ===================================================================================================

TEST(Ubuntu2404Cuda118, CompilersOfTheMachine) {
    const json p = check_json("ubuntu2404-cuda118").at("platform");
    EXPECT_EQ(p.at("os_id"), "ubuntu");
    EXPECT_EQ(p.at("os_version"), "24.04");
    EXPECT_EQ(p.at("kernel"), "6.8.0-45-generic");
    EXPECT_EQ(p.at("glibc"), "2.39");
    EXPECT_EQ(p.at("gcc_default"), 13);
    EXPECT_TRUE(contains(p.at("gcc_installed"), 12)) << str(p.at("gcc_installed"));
    EXPECT_TRUE(contains(p.at("gcc_installed"), 13)) << str(p.at("gcc_installed"));
    EXPECT_FALSE(contains(p.at("gcc_installed"), 11)) << str(p.at("gcc_installed"));
}

TEST(Ubuntu2404Cuda118, Toolkit118AcceptsGccUpTo11) {
    const json s = check_json("ubuntu2404-cuda118");
    ASSERT_EQ(s.at("toolkits").size(), 1u) << str(s.at("toolkits"));
    const json& tk = s.at("toolkits").at(0);
    EXPECT_EQ(tk.at("path"), "/usr/local/cuda-11.8");
    EXPECT_EQ(tk.at("version"), "11.8.89");
    EXPECT_EQ(tk.at("install_method"), "runfile");
    EXPECT_EQ(tk.at("max_gcc"), 11);
    EXPECT_EQ(tk.at("max_gcc_source"), "include/crt/host_config.h");
    EXPECT_EQ(tk.at("is_default"), true);
    EXPECT_EQ(tk.at("first_on_path"), true) << "PATH reaches it through /usr/local/cuda/bin";
}

TEST(Ubuntu2404Cuda118, PathThroughTheCudaSymlink) {
    const json env = check_json("ubuntu2404-cuda118").at("environment");
    EXPECT_EQ(env.at("cuda_symlink"), "/usr/local/cuda-11.8");
    ASSERT_EQ(env.at("nvcc_on_path").size(), 1u) << str(env.at("nvcc_on_path"));
    EXPECT_TRUE(env.at("nvcc_on_path").at(0) == "/usr/local/cuda/bin/nvcc" || env.at("nvcc_on_path").at(0) == "/usr/local/cuda-11.8/bin/nvcc")
        << env.at("nvcc_on_path").at(0);
    ASSERT_EQ(env.at("ld_library_path").size(), 1u) << str(env.at("ld_library_path"));
    EXPECT_EQ(env.at("ld_library_path").at(0).at("path"), "/usr/local/cuda/lib64");
    EXPECT_EQ(env.at("ld_library_path").at(0).at("exists"), true);
    EXPECT_TRUE(contains(env.at("ld_library_path").at(0).at("cuda_libraries"), "libcudart.so.11.0")) << str(env.at("ld_library_path").at(0));
    EXPECT_TRUE(contains(env.at("ld_so_conf_dirs"), "/usr/local/cuda-11.8/lib64")) << str(env.at("ld_so_conf_dirs"));
    EXPECT_NE(find_by(env.at("loader_cache"), "soname", "libcudart.so.11.0"), nullptr) << str(env.at("loader_cache"));
}

TEST(Ubuntu2404Cuda118, Rtx3060OnDriver550) {
    const json s = check_json("ubuntu2404-cuda118");
    ASSERT_EQ(s.at("gpus").size(), 1u) << str(s.at("gpus"));
    EXPECT_EQ(s.at("gpus").at(0).at("pci_device_id"), "10de:2504");
    EXPECT_TRUE(has_substr(s.at("gpus").at(0).at("name"), "3060"));
    EXPECT_EQ(s.at("gpus").at(0).at("compute_capability"), "8.6");
    EXPECT_EQ(s.at("driver").at("kernel_module_version"), "550.120");
    EXPECT_EQ(s.at("driver").at("user_space_versions"), json::array({"550.120"}));
    EXPECT_EQ(s.at("driver").at("max_cuda"), "12.4");
}

// ===================================================================================================
// broken-inputs: loops, dangling links, garbage files, non-UTF-8 bytes. Never a hang or a crash.
// ===================================================================================================

TEST(BrokenInputs, FinishesWithNotesInsteadOfCrashing) {
    const json s = check_json("broken-inputs");  // exit 0/1 within the timeout, valid (UTF-8) JSON
    EXPECT_FALSE(s.at("notes").empty()) << "garbage files deserve a note";
    EXPECT_NE(find_if(s.at("notes"), [](const json& n) { return has_substr(n.value("path", json()), "/usr/local/cuda-12.2/version.json"); }),
              nullptr)
        << str(s.at("notes"));
}

TEST(BrokenInputs, ToolkitsDespiteLoopsAndGarbage) {
    const json s = check_json("broken-inputs");
    const json* tk = toolkit_at(s, "/usr/local/cuda-12.2");
    if (tk != nullptr) {
        EXPECT_TRUE(starts_with(tk->at("version"), "12.2")) << "include/cuda.h says 12020: " << tk->dump();
        EXPECT_EQ(tk->at("has_nvcc"), false);
    }
    for (const char* bogus :
         {"/usr/local/cuda-12.0", "/usr/local/cuda-11.7", "/usr/local/cuda-11.7.d", "/usr/local/cuda-12.6", "/usr/local/cuda"}) {
        EXPECT_EQ(find_by(s.at("toolkits"), "path", bogus), nullptr) << bogus << " is a loop or dangling link";
    }
    EXPECT_EQ(s.at("environment").at("cuda_symlink_dangling"), true);
}

TEST(BrokenInputs, UnknownRatherThanWrong) {
    const json s = check_json("broken-inputs");
    EXPECT_EQ(s.at("driver").at("modules_known"), false) << "no /proc/modules: unknown, not 'not loaded'";
    EXPECT_EQ(s.at("platform").at("secure_boot"), "unknown") << "a 3-byte SecureBoot variable";
    EXPECT_EQ(s.at("environment").at("cuda_visible_devices"), "") << "set but empty hides every GPU";
    EXPECT_EQ(s.at("environment").at("cuda_home"), "/usr/local/cuda-12.0");
    const json& ld = s.at("environment").at("ld_library_path");
    EXPECT_NE(find_by(ld, "empty", true), nullptr) << str(ld);
    const json* missing = find_by(ld, "path", "/nonexistent/lib");
    ASSERT_NE(missing, nullptr) << str(ld);
    EXPECT_EQ(missing->at("exists"), false);
}

}  // namespace
}  // namespace cudoctor::test
