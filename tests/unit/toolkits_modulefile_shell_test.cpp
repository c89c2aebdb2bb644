// The modulefile text (Tcl and Lua) from a toolkit's folders, which folders a toolkit offers,
// and the save / restore of `cudoctor use` and `use --unset`.
#include <gtest/gtest.h>

#include <map>

#include "common/text.hpp"
#include "support/temp_dir.hpp"
#include "toolkits/modulefile.hpp"
#include "toolkits/shell.hpp"

namespace cudoctor::toolkits {
namespace {

Entry runfile_124() {
    Entry e;
    e.toolkit.path = "/opt/cuda-12.4";
    e.toolkit.version = "12.4.131";
    e.toolkit.has_nvcc = true;
    e.toolkit.nvcc_path = "/opt/cuda-12.4/bin/nvcc";
    e.toolkit.lib_dir = "/opt/cuda-12.4/targets/x86_64-linux/lib";
    e.release = "12.4.1";
    return e;
}

ModuleFolders all_folders() {
    return {.bin = "/opt/cuda-12.4/bin",
            .include = {"/opt/cuda-12.4/include", "/opt/cuda-12.4/extras/CUPTI/include"},
            .libraries = {"/opt/cuda-12.4/targets/x86_64-linux/lib", "/opt/cuda-12.4/extras/CUPTI/lib64", "/opt/cuda-12.4/nvvm/lib64"},
            .stubs = "/opt/cuda-12.4/targets/x86_64-linux/lib/stubs",
            .cmake_prefix = "/opt/cuda-12.4"};
}

TEST(ToolkitsModulefile, TclSetsWhatSpackAndEasyBuildSetAndConflictsWithBothNames) {
    const auto m = make_modulefile(runfile_124(), all_folders(), "12.4", ModuleFlavour::tcl);
    EXPECT_EQ(m.name, "cuda/12.4");
    EXPECT_EQ(m.relpath, "cuda/12.4");
    EXPECT_EQ(m.content,
              "#%Module1.0\n"
              "## CUDA Toolkit 12.4.1 (/opt/cuda-12.4), written by cudoctor modulefile\n"
              "module-whatis \"Name: cuda\"\n"
              "module-whatis \"Version: 12.4.1\"\n"
              "module-whatis \"Description: CUDA Toolkit 12.4.1 in /opt/cuda-12.4: nvcc, headers and libraries\"\n"
              "proc ModulesHelp { } {\n"
              "    puts stderr \"CUDA Toolkit 12.4.1 (/opt/cuda-12.4), written by cudoctor modulefile.\"\n"
              "    puts stderr \"Sets CUDA_HOME, CUDA_PATH, PATH, CPATH, LIBRARY_PATH, LD_LIBRARY_PATH, CMAKE_PREFIX_PATH.\"\n"
              "    puts stderr \"gcc and g++ find cuda_runtime.h and -lcudart without -I or -L; CMake finds CUDAToolkit.\"\n"
              "    puts stderr \"/opt/cuda-12.4/targets/x86_64-linux/lib/stubs is on LIBRARY_PATH only: it links libcuda without a "
              "driver, never loads it.\"\n"
              "}\n"
              "# One CUDA at a time: two toolkits' libcudart on one LD_LIBRARY_PATH fight. EasyBuild\n"
              "# names its module CUDA, and module names are case-sensitive.\n"
              "conflict cuda\n"
              "conflict CUDA\n"
              "setenv CUDA_HOME \"/opt/cuda-12.4\"\n"
              "setenv CUDA_PATH \"/opt/cuda-12.4\"\n"
              "prepend-path PATH \"/opt/cuda-12.4/bin\"\n"
              "prepend-path CPATH \"/opt/cuda-12.4/include\"\n"
              "prepend-path CPATH \"/opt/cuda-12.4/extras/CUPTI/include\"\n"
              "prepend-path LIBRARY_PATH \"/opt/cuda-12.4/targets/x86_64-linux/lib\"\n"
              "prepend-path LIBRARY_PATH \"/opt/cuda-12.4/extras/CUPTI/lib64\"\n"
              "prepend-path LIBRARY_PATH \"/opt/cuda-12.4/nvvm/lib64\"\n"
              "append-path LIBRARY_PATH \"/opt/cuda-12.4/targets/x86_64-linux/lib/stubs\"\n"
              "prepend-path LD_LIBRARY_PATH \"/opt/cuda-12.4/targets/x86_64-linux/lib\"\n"
              "prepend-path LD_LIBRARY_PATH \"/opt/cuda-12.4/extras/CUPTI/lib64\"\n"
              "prepend-path LD_LIBRARY_PATH \"/opt/cuda-12.4/nvvm/lib64\"\n"
              "prepend-path CMAKE_PREFIX_PATH \"/opt/cuda-12.4\"\n");
}

TEST(ToolkitsModulefile, LuaHasTheFamilyTheEasyBuildConflictAndTheSamePaths) {
    const auto m = make_modulefile(runfile_124(), all_folders(), "12.4", ModuleFlavour::lua);
    EXPECT_EQ(m.relpath, "cuda/12.4.lua");
    const std::string& c = m.content;
    for (const char* line : {"whatis(\"Name: cuda\")\n", "whatis(\"Version: 12.4.1\")\n", "family(\"cuda\")\n", "conflict(\"CUDA\")\n",
                             "help(\"CUDA Toolkit 12.4.1 (/opt/cuda-12.4), written by cudoctor modulefile.\\nSets CUDA_HOME, ",
                             "setenv(\"CUDA_HOME\", \"/opt/cuda-12.4\")\n", "prepend_path(\"CPATH\", \"/opt/cuda-12.4/include\")\n",
                             "append_path(\"LIBRARY_PATH\", \"/opt/cuda-12.4/targets/x86_64-linux/lib/stubs\")\n",
                             "prepend_path(\"LD_LIBRARY_PATH\", \"/opt/cuda-12.4/extras/CUPTI/lib64\")\n",
                             "prepend_path(\"CMAKE_PREFIX_PATH\", \"/opt/cuda-12.4\")\n"})
        EXPECT_NE(c.find(line), std::string::npos) << line << "\n" << c;
    // the stubs are never on LD_LIBRARY_PATH
    EXPECT_EQ(c.find("prepend_path(\"LD_LIBRARY_PATH\", \"/opt/cuda-12.4/targets/x86_64-linux/lib/stubs"), std::string::npos);
}

TEST(ToolkitsModulefile, FoldersAreThoseTheToolkitHasAndNeverTheSystemsOwn) {
    test::TempDir root;
    root.write("opt/cuda-12.4/bin/nvcc", "", true);
    root.write("opt/cuda-12.4/include/cuda_runtime.h", "");
    root.write("opt/cuda-12.4/extras/CUPTI/lib64/libcupti.so", "");
    root.write("opt/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12", "");
    root.write("opt/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so", "");
    // no extras/CUPTI/include, no nvvm/lib64
    root.write("usr/bin/nvcc", "", true);
    root.write("usr/include/cuda_runtime.h", "");
    root.write("usr/lib/x86_64-linux-gnu/libcudart.so.12", "");
    auto host = host::Host::rooted(root.str());
    ASSERT_TRUE(host) << host.error().message;

    const auto f = module_folders(*host, runfile_124());
    EXPECT_EQ(f.bin, "/opt/cuda-12.4/bin");
    EXPECT_EQ(f.include, std::vector<std::string>{"/opt/cuda-12.4/include"});
    EXPECT_EQ(f.libraries, (std::vector<std::string>{"/opt/cuda-12.4/targets/x86_64-linux/lib", "/opt/cuda-12.4/extras/CUPTI/lib64"}));
    EXPECT_EQ(f.stubs, "/opt/cuda-12.4/targets/x86_64-linux/lib/stubs");
    EXPECT_EQ(f.cmake_prefix, "/opt/cuda-12.4");

    // Debian's nvidia-cuda-toolkit lives in /usr: CPATH=/usr/include would break libstdc++'s
    // #include_next, and /usr/bin first on PATH would reorder every command.
    Entry debian;
    debian.toolkit.path = "/usr";
    debian.toolkit.version = "12.0.140";
    debian.toolkit.has_nvcc = true;
    debian.toolkit.nvcc_path = "/usr/bin/nvcc";
    debian.toolkit.lib_dir = "/usr/lib/x86_64-linux-gnu";
    const auto d = module_folders(*host, debian);
    EXPECT_EQ(d.bin, "");
    EXPECT_TRUE(d.include.empty());
    EXPECT_TRUE(d.libraries.empty());
    EXPECT_EQ(d.stubs, "");
    EXPECT_EQ(d.cmake_prefix, "");
    const auto m = make_modulefile(debian, d, "12.0", ModuleFlavour::tcl);
    EXPECT_NE(m.content.find("puts stderr \"Sets CUDA_HOME, CUDA_PATH.\"\n"), std::string::npos) << m.content;
    EXPECT_EQ(m.content.find("-path "), std::string::npos) << m.content;
}

/// The environment a shell would have after evaluating bash code of the kind use_script writes
/// (export NAME='value' / unset NAME lines only), starting from `env`.
std::map<std::string, std::string> env_after(std::map<std::string, std::string> env, const std::string& script) {
    for (auto line : text::split(script, '\n')) {
        if (line.starts_with("export ")) {
            auto eq = line.find('=');
            std::string value(line.substr(eq + 1));
            if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') value = value.substr(1, value.size() - 2);
            env[std::string(line.substr(7, eq - 7))] = value;
        } else if (line.starts_with("unset ")) {
            env.erase(std::string(line.substr(6)));
        }
    }
    return env;
}

ShellEnv shell_env_of(const std::map<std::string, std::string>& env) {
    return read_shell_env([&](const char* key) -> std::optional<std::string> {
        auto it = env.find(key);
        return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
}

const std::vector<std::string> kToolkitDirs = {"/usr/local/cuda-11.8", "/usr/local/cuda-12.4", "/usr/local/cuda"};

UseRequest use_124() {
    return {.home = "/usr/local/cuda-12.4",
            .bin_dir = "/usr/local/cuda-12.4/bin",
            .lib_dir = "/usr/local/cuda-12.4/lib64",
            .toolkit_dirs = kToolkitDirs,
            .label = "CUDA 12.4.1 from /usr/local/cuda-12.4"};
}

TEST(ToolkitsUseUnset, PutsBackExactlyWhatTheFirstUseFound) {
    const std::map<std::string, std::string> before = {{"PATH", "/usr/local/cuda-11.8/bin:/usr/bin:/bin"}, {"HOME", "/home/dev"}};
    auto switched = env_after(before, use_script(Shell::bash, use_124(), shell_env_of(before)));
    EXPECT_EQ(switched["PATH"], "/usr/local/cuda-12.4/bin:/usr/bin:/bin");
    EXPECT_EQ(switched["LD_LIBRARY_PATH"], "/usr/local/cuda-12.4/lib64");
    EXPECT_EQ(switched["CUDA_HOME"], "/usr/local/cuda-12.4");
    // A second use keeps what the first one saved.
    auto req = use_124();
    req.home = "/usr/local/cuda-11.8";
    req.bin_dir = "/usr/local/cuda-11.8/bin";
    req.lib_dir = "/usr/local/cuda-11.8/lib64";
    switched = env_after(switched, use_script(Shell::bash, req, shell_env_of(switched)));
    EXPECT_EQ(switched["PATH"], "/usr/local/cuda-11.8/bin:/usr/bin:/bin");

    auto unset = unset_script(Shell::bash, shell_env_of(switched), kToolkitDirs);
    ASSERT_TRUE(unset) << unset.error().message;
    EXPECT_TRUE(unset->notes.empty());
    EXPECT_EQ(env_after(switched, unset->script), before);  // LD_LIBRARY_PATH and CUDA_HOME unset again, no _CUDOCTOR_ left
}

TEST(ToolkitsUseUnset, AListChangedSinceKeepsTheChangeAndLosesOnlyTheToolkits) {
    const std::map<std::string, std::string> before = {{"PATH", "/usr/bin"}, {"LD_LIBRARY_PATH", "/opt/x/lib"}, {"CUDA_HOME", "/old"}};
    auto env = env_after(before, use_script(Shell::bash, use_124(), shell_env_of(before)));
    env["PATH"] = "/home/dev/venv/bin:" + env["PATH"];  // a venv activated after use
    auto unset = unset_script(Shell::bash, shell_env_of(env), kToolkitDirs);
    ASSERT_TRUE(unset) << unset.error().message;
    const auto restored = env_after(env, unset->script);
    EXPECT_EQ(restored.at("PATH"), "/home/dev/venv/bin:/usr/bin");
    EXPECT_EQ(restored.at("LD_LIBRARY_PATH"), "/opt/x/lib");  // unchanged since: back exactly
    EXPECT_EQ(restored.at("CUDA_HOME"), "/old");
    ASSERT_EQ(unset->notes.size(), 1u);
    EXPECT_EQ(unset->notes[0], "PATH changed since cudoctor use: kept as it is, without the CUDA toolkits' entries");
}

TEST(ToolkitsUseUnset, AShellUseNeverSwitchedIsAnError) {
    auto unset = unset_script(Shell::bash, shell_env_of({{"PATH", "/usr/bin"}}), kToolkitDirs);
    ASSERT_FALSE(unset);
    EXPECT_EQ(unset.error().code, Errc::usage);
    EXPECT_EQ(unset.error().message, "this shell was not switched by cudoctor use (no _CUDOCTOR_USE in its environment): nothing to undo");
}

TEST(ToolkitsUseUnset, FishListsAndUnsets) {
    const std::map<std::string, std::string> before = {{"PATH", "/usr/bin:/bin"}};
    const auto use = use_script(Shell::fish, use_124(), shell_env_of(before));
    EXPECT_NE(use.find("set -e _CUDOCTOR_USE_OLD_LD_LIBRARY_PATH\n"), std::string::npos) << use;
    EXPECT_NE(use.find("set -gx _CUDOCTOR_USE_OLD_PATH '/usr/bin' '/bin'\n"), std::string::npos) << use;
    EXPECT_NE(use.find("set -gx PATH '/usr/local/cuda-12.4/bin' '/usr/bin' '/bin'\n"), std::string::npos) << use;
    EXPECT_EQ(use.find("hash -r"), std::string::npos) << use;
}

}  // namespace
}  // namespace cudoctor::toolkits
