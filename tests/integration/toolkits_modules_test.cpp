// The modulefiles `cudoctor modulefile` writes, loaded by the real module commands: the Tcl
// modulecmd of Debian's environment-modules and Lmod's lmod. One CUDA module at a time (EasyBuild's
// CUDA module refused too), and under a module of the real CUDA 13.0 toolkit of this machine,
// `gcc -lcudart` and `nvcc` compile and link with no -I or -L. Nothing here needs a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "integration/toolkits_support.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {

namespace fs = std::filesystem;

/// environment-modules' modulecmd.tcl. Debian's lmod and environment-modules packages conflict,
/// so on a machine with lmod installed the Tcl one is the unpacked .deb
/// (`dpkg-deb -x environment-modules_*.deb /opt/environment-modules`, see scripts/deps.sh).
std::string modulecmd_tcl() {
    if (const char* e = std::getenv("CUDOCTOR_MODULECMD_TCL"); e && *e) return e;
    for (const char* p : {"/usr/lib/x86_64-linux-gnu/modulecmd.tcl", "/usr/share/modules/libexec/modulecmd.tcl",
                          "/opt/environment-modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl"})
        if (fs::exists(p)) return p;
    return {};
}

std::string lmod() {
    for (const char* p : {"/usr/share/lmod/lmod/libexec/lmod", "/usr/share/lmod/libexec/lmod"})
        if (fs::exists(p)) return p;
    return {};
}

/// Writes `cudoctor modulefile VERSION [--lmod]` into DIR/cuda/<name>.
void write_modules(const fs::path& dir, bool lua) {
    fs::create_directories(dir / "cuda");
    for (const std::string v : {"11.8", "12.1", "12.4"}) {
        std::vector<std::string> args{"modulefile", v, "--root", kToolkitsRoot};
        if (lua) args.emplace_back("--lmod");
        auto run = run_cudoctor(args);
        ASSERT_EQ(run.exit_code, 0) << run.err;
        std::ofstream(dir / "cuda" / (v + (lua ? ".lua" : ""))) << run.out;
    }
}

/// A module as EasyBuild names its CUDA: CUDA/12.4.0 (module names are case-sensitive).
void write_easybuild_cuda(const fs::path& dir, bool lua) {
    fs::create_directories(dir / "CUDA");
    if (lua) std::ofstream(dir / "CUDA" / "12.4.0.lua") << "setenv(\"CUDA_HOME\", \"/easybuild/CUDA/12.4.0\")\n";
    else std::ofstream(dir / "CUDA" / "12.4.0") << "#%Module1.0\nsetenv CUDA_HOME /easybuild/CUDA/12.4.0\n";
}

std::vector<std::string> module_env(const fs::path& dir) {
    return {"MODULEPATH=" + dir.string(), "PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8", "LMOD_REDIRECT=no"};
}

TEST(ToolkitsModules, TclModulefilesLoadListAndRefuseASecondCuda) {
    const std::string cmd = modulecmd_tcl();
    if (cmd.empty() || !have("/usr/bin/tclsh")) GTEST_SKIP() << "environment-modules' modulecmd.tcl or tclsh not found";
    TempDir tmp;
    write_modules(tmp.path(), false);
    const std::string mc = "tclsh '" + cmd + "' bash";
    const std::string script = "eval \"$(" + mc +
                               " load cuda/12.4)\" && printf '%s|%s|%s\\n' \"$LOADEDMODULES\" \"$CUDA_HOME\" \"$PATH\" && " + mc +
                               " list 2>&1; " + mc +
                               " load cuda/12.1 > /tmp/cudoctor-second-load.$$ 2>&1; out=$(cat /tmp/cudoctor-second-load.$$); "
                               "rm -f /tmp/cudoctor-second-load.$$; printf 'second:%s\\n' \"$out\"";
    auto run = run_shell("/bin/bash", script, module_env(tmp.path()));
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_NE(run.out.find("cuda/12.4|/usr/local/cuda-12.4|/usr/local/cuda-12.4/bin:/usr/bin:/bin\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("1) cuda/12.4"), std::string::npos) << run.out;  // module list
    EXPECT_NE(run.out.find("Module cannot be loaded due to a conflict"), std::string::npos) << run.out;
}

TEST(ToolkitsModules, TclRefusesEasyBuildsCudaEitherWay) {
    const std::string cmd = modulecmd_tcl();
    if (cmd.empty() || !have("/usr/bin/tclsh")) GTEST_SKIP() << "environment-modules' modulecmd.tcl or tclsh not found";
    TempDir tmp;
    write_modules(tmp.path(), false);
    write_easybuild_cuda(tmp.path(), false);
    const std::string mc = "tclsh '" + cmd + "' bash";
    // EasyBuild's CUDA loaded: ours is refused (our `conflict CUDA`); ours loaded: EasyBuild's is.
    const std::string script = "eval \"$(" + mc + " load CUDA/12.4.0)\" && " + mc + " load cuda/12.4 2>&1 >/dev/null; eval \"$(" + mc +
                               " unload CUDA)\"; eval \"$(" + mc + " load cuda/12.4)\" && " + mc +
                               " load CUDA/12.4.0 2>&1 >/dev/null; printf 'loaded:%s\\n' \"$LOADEDMODULES\"";
    auto run = run_shell("/bin/bash", script, module_env(tmp.path()));
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_NE(run.out.find(
                  "Loading cuda/12.4\n  ERROR: Module cannot be loaded due to a conflict.\n    HINT: Might try \"module unload CUDA\""),
              std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("Loading CUDA/12.4.0\n  ERROR: Module cannot be loaded due to a conflict."), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("loaded:cuda/12.4\n"), std::string::npos) << run.out;
}

TEST(ToolkitsModules, LmodModulefilesLoadListAndRefuseASecondCuda) {
    const std::string cmd = lmod();
    if (cmd.empty()) GTEST_SKIP() << "Lmod not installed";
    TempDir tmp;
    write_modules(tmp.path(), true);
    // A second module of the cuda family: refused when auto-swap is off, swapped (one left) when on.
    fs::create_directories(tmp.path() / "nvhpc");
    std::ofstream(tmp.path() / "nvhpc" / "24.3.lua") << "family(\"cuda\")\nsetenv(\"CUDA_HOME\", \"/opt/nvidia/hpc_sdk/cuda\")\n";
    const std::string lm = "'" + cmd + "' bash";
    const std::string script = "eval \"$(" + lm + " load cuda/12.4)\" && printf '%s|%s\\n' \"$LOADEDMODULES\" \"$CUDA_HOME\" && " + lm +
                               " list 2>&1; LMOD_AUTO_SWAP=no " + lm + " load nvhpc/24.3 2>&1 >/dev/null; echo \"refused:$?\"; eval \"$(" +
                               lm + " load cuda/11.8 2>/dev/null)\"; printf '%s|%s\\n' \"$LOADEDMODULES\" \"$CUDA_HOME\"";
    auto run = run_shell("/bin/bash", script, module_env(tmp.path()));
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_NE(run.out.find("cuda/12.4|/usr/local/cuda-12.4\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("1) cuda/12.4"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("You can only have one cuda module"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("refused:1"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("\ncuda/11.8|/usr/local/cuda-11.8\n"), std::string::npos) << run.out;  // swapped, never two
}

TEST(ToolkitsModules, LmodRefusesOursBesideEasyBuildsCuda) {
    const std::string cmd = lmod();
    if (cmd.empty()) GTEST_SKIP() << "Lmod not installed";
    TempDir tmp;
    write_modules(tmp.path(), true);
    write_easybuild_cuda(tmp.path(), true);
    // Lmod checks a conflict when the module that declares it loads: EasyBuild's CUDA first.
    const std::string lm = "'" + cmd + "' bash";
    const std::string script = "eval \"$(" + lm + " load CUDA/12.4.0)\" && " + lm + " load cuda/12.4 2>&1 >/dev/null; echo \"refused:$?\"";
    auto run = run_shell("/bin/bash", script, module_env(tmp.path()));
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_NE(run.out.find("Cannot load module \"cuda/12.4\" because\nthese module(s) are loaded:\n   CUDA\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("refused:1"), std::string::npos) << run.out;
}

/// Small programs that need the toolkit's headers and libraries and no -I / -L: cudart (run: it
/// asks libcudart its version, which needs no GPU), libcuda (linked against the toolkit's stub,
/// never run: this machine has no driver), CUPTI (linked), and a kernel for nvcc (built only).
void write_programs(const TempDir& tmp) {
    tmp.write("cudart.c",
              "#include <cuda_runtime.h>\n#include <stdio.h>\n"
              "int main(void) { int v = 0; if (cudaRuntimeGetVersion(&v) != cudaSuccess) return 1; printf(\"cudart %d\\n\", v); return 0; }\n");
    tmp.write("driver.c", "#include <cuda.h>\nint main(void) { return cuInit(0) == CUDA_SUCCESS ? 0 : 1; }\n");
    tmp.write("cupti.c", "#include <cupti.h>\nint main(void) { uint32_t v = 0; return cuptiGetVersion(&v) == CUPTI_SUCCESS ? 0 : 1; }\n");
    tmp.write("kernel.cu", "#include <cstdio>\n__global__ void add_one(int* p) { *p += 1; }\nint main() { std::printf(\"built\\n\"); }\n");
}

/// Loads cuda/13.0 with `module_cmd` (a command that prints bash code) in a bare shell and builds
/// every program: first without the module (it must fail), then under it.
RunResult build_under_module(const TempDir& tmp, const std::string& module_cmd) {
    const std::string script = "cd '" + tmp.str() +
                               "' || exit 9\n"
                               "gcc cudart.c -lcudart -o without 2>/dev/null && echo 'without: built' || echo 'without: failed'\n"
                               "eval \"$(" +
                               module_cmd +
                               " load cuda/13.0)\"\n"
                               "printf 'loaded:%s\\n' \"$LOADEDMODULES\"\n"
                               "printf 'CPATH=%s\\nLIBRARY_PATH=%s\\nLD_LIBRARY_PATH=%s\\nCMAKE_PREFIX_PATH=%s\\nCUDA_HOME=%s\\n' "
                               "\"$CPATH\" \"$LIBRARY_PATH\" \"$LD_LIBRARY_PATH\" \"$CMAKE_PREFIX_PATH\" \"$CUDA_HOME\"\n"
                               "gcc cudart.c -lcudart -o cudart && ./cudart\n"
                               "gcc driver.c -lcuda -o driver && echo 'driver: linked'\n"
                               "gcc cupti.c -lcupti -o cupti && echo 'cupti: linked'\n"
                               "printf 'nvcc:%s\\n' \"$(command -v nvcc)\"\n"
                               "nvcc kernel.cu -o kernel && echo 'nvcc: built'\n"
                               "eval \"$(" +
                               module_cmd +
                               " unload cuda/13.0)\"\n"
                               "printf 'unloaded:[%s][%s]\\n' \"$CPATH\" \"$LIBRARY_PATH\"\n";
    return run_program("/bin/bash", {"-c", script}, module_env(tmp.path() / "modules"), std::chrono::minutes(5));
}

void expect_built(const RunResult& run) {
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    EXPECT_NE(run.out.find("without: failed\n"), std::string::npos) << run.out;  // the module is what makes it work
    EXPECT_NE(run.out.find("loaded:cuda/13.0\n"), std::string::npos) << run.out << run.err;
    EXPECT_NE(run.out.find("CPATH=/usr/local/cuda-13.0/include\n"), std::string::npos) << run.out;
    // The libraries, then the stubs appended (link only); the stubs never on LD_LIBRARY_PATH.
    EXPECT_NE(run.out.find("LIBRARY_PATH=/usr/local/cuda-13.0/lib:/usr/local/cuda-13.0/lib/stubs\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("LD_LIBRARY_PATH=/usr/local/cuda-13.0/lib\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("CMAKE_PREFIX_PATH=/usr/local/cuda-13.0\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("CUDA_HOME=/usr/local/cuda-13.0\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("cudart 13000\n"), std::string::npos) << run.out << run.err;
    EXPECT_NE(run.out.find("driver: linked\n"), std::string::npos) << run.out << run.err;
    EXPECT_NE(run.out.find("cupti: linked\n"), std::string::npos) << run.out << run.err;
    EXPECT_NE(run.out.find("nvcc:/usr/local/cuda-13.0/bin/nvcc\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("nvcc: built\n"), std::string::npos) << run.out << run.err;
    EXPECT_NE(run.out.find("unloaded:[][]\n"), std::string::npos) << run.out;
}

/// `cudoctor modulefile /usr/local/cuda-13.0` on this machine (no --root) into DIR/cuda/13.0[.lua].
void write_real_module(const fs::path& dir, bool lua) {
    std::vector<std::string> args{"modulefile", kRealToolkit};
    if (lua) args.emplace_back("--lmod");
    auto run = run_program(CUDOCTOR_BINARY, args, {"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"}, std::chrono::seconds(60));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    ASSERT_NE(run.out.find(lua ? "family(\"cuda\")" : "conflict CUDA"), std::string::npos) << run.out;
    fs::create_directories(dir / "cuda");
    std::ofstream(dir / "cuda" / (lua ? "13.0.lua" : "13.0")) << run.out;
}

TEST(ToolkitsModules, GccAndNvccBuildUnderTheTclModuleOfTheRealToolkit) {
    const std::string cmd = modulecmd_tcl();
    if (cmd.empty() || !have("/usr/bin/tclsh")) GTEST_SKIP() << "environment-modules' modulecmd.tcl or tclsh not found";
    if (!have(kRealToolkit + "/bin/nvcc") || !have("/usr/bin/gcc")) GTEST_SKIP() << "no CUDA 13.0 nvcc or gcc";
    TempDir tmp;
    write_real_module(tmp.path() / "modules", false);
    write_programs(tmp);
    expect_built(build_under_module(tmp, "tclsh '" + cmd + "' bash"));
}

TEST(ToolkitsModules, GccAndNvccBuildUnderTheLmodModuleOfTheRealToolkit) {
    const std::string cmd = lmod();
    if (cmd.empty()) GTEST_SKIP() << "Lmod not installed";
    if (!have(kRealToolkit + "/bin/nvcc") || !have("/usr/bin/gcc")) GTEST_SKIP() << "no CUDA 13.0 nvcc or gcc";
    TempDir tmp;
    write_real_module(tmp.path() / "modules", true);
    write_programs(tmp);
    expect_built(build_under_module(tmp, "'" + cmd + "' bash"));
}

}  // namespace
}  // namespace cudoctor::test
