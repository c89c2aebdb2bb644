// The environment rules (src/rules/environment_rules.cpp) on Snapshot literals: each fires on the
// smallest machine that has its problem and stays silent on the nearest healthy one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/rule_cases.hpp"

namespace cudoctor::test::rule_cases {
namespace {

using ::testing::HasSubstr;

const std::string kLib124 = "/usr/local/cuda-12.4/targets/x86_64-linux/lib";
const std::string kLib126 = "/usr/local/cuda-12.6/targets/x86_64-linux/lib";
const std::string kCondaEnv = "/home/alice/miniconda3/envs/ml";

/// gpu_machine() whose /usr/local/cuda is a CUDA 12.4 toolkit with its libcudart in kLib124,
/// `visible` to the loader or not.
snapshot::Snapshot runtime_machine(bool visible) {
    auto s = gpu_machine();
    auto tk = toolkit("12.4.131");
    tk.is_default = true;
    tk.lib_dir = kLib124;
    tk.cudart_soname = "libcudart.so.12";
    tk.cudart_loader_visible = visible;
    s.environment.cuda_symlink = tk.path;
    s.toolkits = {tk};
    put_first_on_path(s, s.toolkits[0]);
    if (visible) s.environment.loader_cache = {cache_entry("libcudart.so.12", kLib124)};
    return s;
}

/// An LD_LIBRARY_PATH entry that does not exist.
snapshot::LibraryPathEntry missing_entry(const std::string& path) {
    snapshot::LibraryPathEntry e;
    e.path = path;
    return e;
}

/// An empty LD_LIBRARY_PATH entry ("/x:" or "::"): the current directory.
snapshot::LibraryPathEntry empty_entry() {
    snapshot::LibraryPathEntry e;
    e.empty = true;
    return e;
}

/// runtime_machine(true) with the conda env kCondaEnv active, its CUDA 12.1 runtime in its lib/.
snapshot::Snapshot conda_machine() {
    auto s = runtime_machine(true);
    auto conda = toolkit("12.1.105", kCondaEnv);
    conda.install_method = snapshot::InstallMethod::conda;
    conda.has_nvcc = false;
    conda.nvcc_path = "";
    conda.lib_dir = kCondaEnv + "/lib";
    conda.cudart_soname = "libcudart.so.12";
    conda.cudart_loader_visible = true;
    conda.found_by = {"conda env"};
    s.toolkits.push_back(conda);
    s.environment.conda_envs = {kCondaEnv};
    s.environment.active_conda_env = kCondaEnv;
    s.environment.ld_library_path = {ld_path_entry(kCondaEnv + "/lib", {"libcudart.so.12.1.105"})};
    return s;
}

}  // namespace

// --- ld-library-path-missing-dir --------------------------------------------------------------

TEST(RulesEnvironment, MissingLdLibraryPathFolderFires) {
    auto s = runtime_machine(true);
    s.environment.ld_library_path = {ld_path_entry("/usr/local/cuda/lib64"), missing_entry("/usr/local/cuda-12.2/lib64")};
    const auto found = fired("ld-library-path-missing-dir", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("do not exist: /usr/local/cuda-12.2/lib64"));
    EXPECT_THAT(found[0].title, ::testing::Not(HasSubstr("/usr/local/cuda/lib64")));
    EXPECT_TRUE(evidence_mentions(found[0], "/usr/local/cuda-12.2/lib64 does not exist"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesEnvironment, ExistingLdLibraryPathFoldersAreSilent) {
    auto s = runtime_machine(true);
    s.environment.ld_library_path = {ld_path_entry("/usr/local/cuda/lib64"), ld_path_entry("/usr/local/cuda-12.2/lib64")};
    EXPECT_TRUE(silent("ld-library-path-missing-dir", s));
}

TEST(RulesEnvironment, NvidiaImagesDriverVolumeFoldersAreNoMissingFolderInAContainer) {
    // nvidia/cuda images set LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64 (the
    // driver volume of nvidia-docker 1): missing on every healthy container of today's runtime.
    auto s = runtime_machine(true);
    s.platform.container = "docker";
    s.environment.ld_library_path = {missing_entry("/usr/local/nvidia/lib"), missing_entry("/usr/local/nvidia/lib64")};
    EXPECT_TRUE(silent("ld-library-path-missing-dir", s));
    s.environment.ld_library_path.push_back(missing_entry("/usr/local/cuda-12.2/lib64"));  // a real one still counts
    const auto found = fired("ld-library-path-missing-dir", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, ::testing::Not(HasSubstr("/usr/local/nvidia")));
    s.platform.container.clear();  // outside a container a missing folder is a missing folder
    s.environment.ld_library_path.pop_back();
    EXPECT_EQ(fired("ld-library-path-missing-dir", s).size(), 1u);
}

TEST(RulesEnvironment, EmptyEntryIsNoMissingFolder) {
    // An empty entry is the current directory: ld-library-path-empty-entry's case, not this one.
    auto s = runtime_machine(true);
    s.environment.ld_library_path = {ld_path_entry("/usr/local/cuda/lib64"), empty_entry()};
    EXPECT_TRUE(silent("ld-library-path-missing-dir", s));
}

// --- ld-library-path-empty-entry --------------------------------------------------------------

TEST(RulesEnvironment, EmptyLdLibraryPathEntryFires) {
    auto s = runtime_machine(true);
    s.environment.ld_library_path = {ld_path_entry("/usr/local/cuda/lib64"), empty_entry()};
    const auto found = fired("ld-library-path-empty-entry", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("current directory"));
    EXPECT_TRUE(evidence_mentions(found[0], "1 empty entry"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesEnvironment, TwoEmptyEntriesAreCounted) {
    auto s = runtime_machine(true);
    s.environment.ld_library_path = {empty_entry(), ld_path_entry("/usr/local/cuda/lib64"), empty_entry()};
    const auto found = fired("ld-library-path-empty-entry", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(evidence_mentions(found[0], "2 empty entries"));
}

TEST(RulesEnvironment, LdLibraryPathSetToNothingIsSilent) {
    // `LD_LIBRARY_PATH=`: glibc ignores an empty value; it was reported as "the current directory".
    auto s = runtime_machine(true);
    s.environment.ld_library_path = {empty_entry()};
    EXPECT_TRUE(silent("ld-library-path-empty-entry", s));
}

TEST(RulesEnvironment, LdLibraryPathWithoutEmptyEntryIsSilent) {
    auto s = runtime_machine(true);
    s.environment.ld_library_path = {ld_path_entry("/usr/local/cuda/lib64"), missing_entry("/usr/local/cuda-12.2/lib64")};
    EXPECT_TRUE(silent("ld-library-path-empty-entry", s));
}

// --- cudart-not-loadable ----------------------------------------------------------------------

TEST(RulesEnvironment, DefaultToolkitsCudartOffTheLoaderPathFires) {
    const auto found = fired("cudart-not-loadable", runtime_machine(false));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("CUDA 12.4.131 (/usr/local/cuda-12.4)'s libcudart.so.12 is not on the loader path"));
    EXPECT_TRUE(evidence_mentions(found[0], kLib124));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesEnvironment, CudartOnTheLoaderPathIsSilent) { EXPECT_TRUE(silent("cudart-not-loadable", runtime_machine(true))); }

TEST(RulesEnvironment, ToolkitWithoutCudartHasNothingToLoad) {
    auto s = runtime_machine(false);
    s.toolkits[0].lib_dir = "";
    s.toolkits[0].cudart_soname = "";
    EXPECT_TRUE(silent("cudart-not-loadable", s));
}

// --- multiple-cudart-on-loader-path -----------------------------------------------------------

TEST(RulesEnvironment, OneSonameFromTwoCacheFoldersFires) {
    auto s = runtime_machine(true);
    s.environment.loader_cache = {cache_entry("libcudart.so.12", kLib124), cache_entry("libcudart.so.12", kLib126)};
    const auto found = fired("multiple-cudart-on-loader-path", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("libcudart.so.12 is reachable from 2 folders; " + kLib124 + " wins"));
    EXPECT_TRUE(evidence_mentions(found[0], kLib126 + "/libcudart.so.12"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesEnvironment, LdLibraryPathCopyWinsOverTheCache) {
    auto s = runtime_machine(true);
    s.environment.ld_library_path = {ld_path_entry("/opt/cuda-12.6/lib64", {"libcudart.so.12.6.77"})};
    const auto found = fired("multiple-cudart-on-loader-path", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_THAT(found[0].title, HasSubstr("/opt/cuda-12.6/lib64 wins"));
}

TEST(RulesEnvironment, TwoNamesOfOneFolderAreOneCopy) {
    // /usr/local/cuda/lib64 on LD_LIBRARY_PATH is the folder the cache already lists.
    auto s = runtime_machine(true);
    auto link = ld_path_entry("/usr/local/cuda/lib64", {"libcudart.so.12.4.127"});
    link.real_path = kLib124;
    s.environment.ld_library_path = {link};
    EXPECT_TRUE(silent("multiple-cudart-on-loader-path", s));
}

TEST(RulesEnvironment, DifferentSonamesAreNoDuplicate) {
    auto s = runtime_machine(true);
    s.environment.loader_cache.push_back(cache_entry("libcudart.so.11.0", "/usr/local/cuda-11.8/targets/x86_64-linux/lib"));
    EXPECT_TRUE(silent("multiple-cudart-on-loader-path", s));
}

// Regression (it fired): a loader-cache entry whose folder is gone (a toolkit removed without
// running ldconfig) has real_dir "" and the rule then counts the entry's *file* path as a folder:
// it reports "libcudart.so.12 is reachable from 2 folders; /usr/local/cuda-12.2/lib64/libcudart.so.12
// wins", with evidence ".../libcudart.so.12/libcudart.so.12". The loader cannot load a file that
// is gone, so only one copy is reachable and the rule should stay silent.
TEST(RulesEnvironment, StaleCacheEntryOfARemovedFolderIsNoCopy) {
    auto s = runtime_machine(true);
    s.environment.loader_cache.insert(s.environment.loader_cache.begin(),
                                      snapshot::LoaderEntry{"libcudart.so.12", "/usr/local/cuda-12.2/lib64/libcudart.so.12", "x86-64", ""});
    EXPECT_TRUE(silent("multiple-cudart-on-loader-path", s));
}

// --- conda-cuda-runtime-conflict --------------------------------------------------------------

TEST(RulesEnvironment, CondaRuntimeWithSystemRuntimeInCacheFires) {
    const auto found = fired("conda-cuda-runtime-conflict", conda_machine());
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, snapshot::Severity::warning);
    EXPECT_THAT(found[0].title, HasSubstr("The conda env " + kCondaEnv + " brings CUDA 12.1.105"));
    EXPECT_TRUE(evidence_mentions(found[0], kLib124 + "/libcudart.so.12"));
    EXPECT_FALSE(found[0].fix.empty());
}

TEST(RulesEnvironment, CondaRuntimeWithSystemRuntimeOnLdLibraryPathFires) {
    auto s = conda_machine();
    s.environment.loader_cache.clear();
    s.environment.ld_library_path.push_back(ld_path_entry("/usr/local/cuda-12.4/lib64", {"libcudart.so.12.4.127"}));
    const auto found = fired("conda-cuda-runtime-conflict", s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(evidence_mentions(found[0], "/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127"));
}

TEST(RulesEnvironment, CondaRuntimeAloneIsSilent) {
    auto s = conda_machine();
    s.environment.loader_cache.clear();  // only the env's own lib/ on LD_LIBRARY_PATH
    EXPECT_TRUE(silent("conda-cuda-runtime-conflict", s));
}

TEST(RulesEnvironment, InactiveCondaEnvIsSilent) {
    auto s = conda_machine();
    s.environment.active_conda_env.reset();
    EXPECT_TRUE(silent("conda-cuda-runtime-conflict", s));
}

}  // namespace cudoctor::test::rule_cases
