// The modulefiles `cudoctor modulefile` writes, loaded by the real module commands: the Tcl
// modulecmd of Debian's environment-modules and Lmod's lmod. One CUDA module at a time.
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

}  // namespace
}  // namespace cudoctor::test
