// `cudoctor use --unset`, the .cuda-version hook that `cudoctor init` prints, and the direnv
// recipe of docs/toolkits.md, each in a real shell: bash (interactive, so PROMPT_COMMAND runs
// before each prompt as in a terminal), zsh (chpwd), fish (PWD) and Debian's direnv. The hook
// runs cudoctor on this machine, so its pin names the real CUDA 13.0 toolkit.
#include <gtest/gtest.h>

#include <filesystem>

#include "integration/toolkits_support.hpp"
#include "support/temp_dir.hpp"

namespace cudoctor::test {
namespace {

namespace fs = std::filesystem;

/// What a shell shows of the variables `use` changes, on one line.
const std::string kShowBash =
    "printf '%s:[%s][%s][%s][%s]\\n' \"$1\" \"${CUDA_HOME-unset}\" \"$PATH\" \"${LD_LIBRARY_PATH-unset}\" "
    "\"$(env | grep -c '^_CUDOCTOR_')\"";

TEST(ToolkitsUseUnset, BashAndZshComeBackToWhereTheyWere) {
    const std::string bin = CUDOCTOR_BINARY;
    for (const std::string shell : {"/bin/bash", "/usr/bin/zsh"}) {
        if (!have(shell)) continue;
        const std::string name = shell.ends_with("zsh") ? "zsh" : "bash";
        const std::string use = "'" + bin + "' use --shell " + name + " --root '" + kToolkitsRoot + "' ";
        const std::string script = "show() { " + kShowBash + "; }\nshow before\neval \"$(" + use + "12.4)\"\neval \"$(" + use +
                                   "12.1)\"\nshow during\neval \"$(" + use + "--unset)\"\nshow after\n";
        auto run = run_shell(shell, script, shell_environment());
        ASSERT_EQ(run.exit_code, 0) << shell << run.err << run.out;
        const std::string before =
            "[/usr/local/cuda-11.8][/usr/local/cuda-11.8/bin:/usr/local/cuda/bin:/usr/bin:/bin]"
            "[/usr/local/cuda-11.8/lib64:/opt/other/lib][0]\n";
        EXPECT_EQ(run.out, "before:" + before +
                               "during:[/usr/local/cuda-12.1][/usr/local/cuda-12.1/bin:/usr/bin:/bin]"
                               "[/usr/local/cuda-12.1/lib64:/opt/other/lib][6]\n"
                               "after:" +
                               before)
            << shell;
        EXPECT_EQ(run.err, "") << shell;
    }
}

TEST(ToolkitsUseUnset, AShellNeverSwitchedGetsAOneLineErrorAndFalse) {
    auto run = run_program(CUDOCTOR_BINARY, {"use", "--unset", "--shell", "bash", "--root", kToolkitsRoot}, shell_environment(),
                           std::chrono::seconds(30));
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_EQ(run.out, "false\n");
    EXPECT_EQ(run.err, "cudoctor use: this shell was not switched by cudoctor use (no _CUDOCTOR_USE in its environment): nothing to undo\n");
    auto both =
        run_program(CUDOCTOR_BINARY, {"use", "12.4", "--unset", "--root", kToolkitsRoot}, shell_environment(), std::chrono::seconds(30));
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_EQ(both.err, "cudoctor use: --unset takes no VERSION and no --dir\n");
}

/// A project with a pin for the real toolkit (proj/.cuda-version, used from proj/sub too), a
/// folder without one, and a project pinned to a version this machine lacks.
struct Projects {
    TempDir tmp;
    Projects() {
        tmp.write("proj/.cuda-version", "13.0\n");
        fs::create_directories(tmp.path() / "proj" / "sub");
        fs::create_directories(tmp.path() / "plain");
        tmp.write("old/.cuda-version", "10.2\n");
    }
    std::string at(const std::string& rel) const { return (tmp.path() / rel).string(); }
};

std::vector<std::string> plain_environment(const Projects& p) {
    return {"PATH=/usr/bin:/bin", "HOME=" + p.tmp.str(), "LANG=C.UTF-8", "TERM=dumb"};
}

const std::string kPinned = "[/usr/local/cuda-13.0][/usr/local/cuda-13.0/bin:/usr/bin:/bin][/usr/local/cuda-13.0/lib64][4]\n";
const std::string kPlain = "[unset][/usr/bin:/bin][unset][0]\n";

/// The same walk for every shell: into the pinned project's subfolder, up to the project, out,
/// into a project pinned to a missing version, and a `cudoctor use` typed by hand outside any pin.
void expect_walk(const RunResult& run, const std::string& shell) {
    EXPECT_EQ(run.out, "start:" + kPlain + "sub:" + kPinned + "proj:" + kPinned + "plain:" + kPlain + "old:" + kPlain +
                           "manual:" + kPinned + "manual-kept:" + kPinned + "unset:" + kPlain)
        << shell << "\n"
        << run.err;
    EXPECT_NE(run.err.find("cudoctor use: "), std::string::npos) << shell << run.err;  // the missing 10.2, said once
    EXPECT_NE(run.err.find("10.2"), std::string::npos) << shell << run.err;
}

std::string pin_walk(const Projects& p, const std::string& cd, const std::string& show) {
    return show + " start\n" + cd + " '" + p.at("proj/sub") + "'\n" + show + " sub\n" + cd + " '" + p.at("proj") + "'\n" + show +
           " proj\n" + cd + " '" + p.at("plain") + "'\n" + show + " plain\n" + cd + " '" + p.at("old") + "'\n" + show + " old\n" + cd +
           " '" + p.at("plain") + "'\ncudoctor use 13.0\n" + show + " manual\n" + cd + " '" + p.tmp.str() + "'\n" + show +
           " manual-kept\n" + "cudoctor use --unset\n" + show + " unset\n";
}

TEST(ToolkitsPinHook, InteractiveBashAppliesTheCudaVersionOnCdAndUndoesItOnLeaving) {
    if (!have(kRealToolkit + "/bin/nvcc")) GTEST_SKIP() << "no CUDA 13.0 toolkit";
    Projects p;
    const std::string bin = CUDOCTOR_BINARY;
    // An interactive bash reading its commands from a file still prompts before each one, and runs
    // PROMPT_COMMAND first: where a terminal's bash runs the hook. (PS1 empty: no prompt text.)
    p.tmp.write("script.bash", "cd '" + p.at("plain") + "'\neval \"$('" + bin + "' init bash)\"\nshow() { " + kShowBash + "; }\n" +
                                   pin_walk(p, "cd", "show"));
    auto env = plain_environment(p);
    env.insert(env.end(), {"PS1=", "PS2="});
    auto run =
        run_program("/bin/bash", {"-c", "exec bash --norc --noprofile -i < '" + p.at("script.bash") + "'"}, env, std::chrono::minutes(2));
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    expect_walk(run, "bash");
}

TEST(ToolkitsPinHook, ZshAppliesTheCudaVersionOnCdAndUndoesItOnLeaving) {
    if (!have(kRealToolkit + "/bin/nvcc")) GTEST_SKIP() << "no CUDA 13.0 toolkit";
    if (!have("/usr/bin/zsh")) GTEST_SKIP() << "zsh is not installed";
    Projects p;
    const std::string bin = CUDOCTOR_BINARY;
    p.tmp.write("script.zsh", "cd '" + p.at("plain") + "'\neval \"$('" + bin + "' init zsh)\"\nshow() { " + kShowBash + "; }\n" +
                                  pin_walk(p, "cd", "show"));
    auto run = run_program("/usr/bin/zsh", {"-f", p.at("script.zsh")}, plain_environment(p), std::chrono::minutes(2));
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    expect_walk(run, "zsh");
}

TEST(ToolkitsPinHook, FishAppliesTheCudaVersionOnCdAndUndoesItOnLeaving) {
    if (!have(kRealToolkit + "/bin/nvcc")) GTEST_SKIP() << "no CUDA 13.0 toolkit";
    if (!have("/usr/bin/fish")) GTEST_SKIP() << "fish is not installed";
    Projects p;
    const std::string bin = CUDOCTOR_BINARY;
    const std::string show =
        "function show\n"
        "    set -l home unset\n"
        "    set -q CUDA_HOME; and set home $CUDA_HOME\n"
        "    set -l ld unset\n"
        "    set -q LD_LIBRARY_PATH; and set ld (string join : $LD_LIBRARY_PATH)\n"
        "    printf '%s:[%s][%s][%s][%s]\\n' $argv[1] $home (string join : $PATH) $ld (env | grep -c '^_CUDOCTOR_')\n"
        "end\n";
    p.tmp.write("script.fish", "cd '" + p.at("plain") + "'\n'" + bin + "' init fish | source\n" + show + pin_walk(p, "cd", "show"));
    auto run = run_program("/usr/bin/fish", {"--no-config", p.at("script.fish")}, plain_environment(p), std::chrono::minutes(2));
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    expect_walk(run, "fish");
}

/// The recipe of docs/toolkits.md: an .envrc that runs `cudoctor use` for the pin beside it, loaded
/// and unloaded by Debian's direnv as its shell hook does (`direnv export bash` at each prompt).
TEST(ToolkitsPinHook, DirenvEnvrcRecipeLoadsThePinAndUnloadsItOnLeaving) {
    if (!have(kRealToolkit + "/bin/nvcc")) GTEST_SKIP() << "no CUDA 13.0 toolkit";
    if (!have("/usr/bin/direnv")) GTEST_SKIP() << "direnv is not installed";
    Projects p;
    const std::string bin = CUDOCTOR_BINARY;
    p.tmp.write("proj/.envrc", "watch_file .cuda-version\neval \"$('" + bin + "' use --shell bash)\"\n");
    const std::string script = "show() { " + kShowBash +
                               "; }\n"
                               "cd '" +
                               p.at("plain") +
                               "'\nshow start\n"
                               "direnv allow '" +
                               p.at("proj") +
                               "'\n"
                               "cd '" +
                               p.at("proj/sub") +
                               "' && eval \"$(direnv export bash)\"\nshow sub\n"
                               "cd '" +
                               p.at("plain") + "' && eval \"$(direnv export bash)\"\nshow plain\n";
    auto env = plain_environment(p);
    env.push_back("XDG_CONFIG_HOME=" + p.at("config"));
    env.push_back("XDG_DATA_HOME=" + p.at("data"));
    auto run = run_shell("/bin/bash", script, env);
    ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
    // direnv's own bookkeeping variables (DIRENV_*) come and go; cudoctor's as `use` left them.
    EXPECT_EQ(run.out, "start:" + kPlain + "sub:" + kPinned + "plain:" + kPlain) << run.err;
    EXPECT_NE(run.err.find("direnv: loading"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("direnv: unloading"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace cudoctor::test
