// --kb DIR: a table dropped in a directory replaces the embedded one.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "kb/kb.hpp"

using cudoctor::Errc;
using cudoctor::Version;
using cudoctor::kb::Kb;
namespace fs = std::filesystem;

// Not in the anonymous namespace: the TEST_F classes derived from it have external linkage.
class KbOverride : public ::testing::Test {
  protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("cudoctor-kb-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    void write(const std::string& name, const std::string& text) { std::ofstream(m_dir / name, std::ios::binary) << text; }
    std::string dir() const { return m_dir.string(); }

    fs::path m_dir;
};

namespace {

const char* kGpuHeader =
    "# source: a test\n"
    "pci_id\tname\tarchitecture\tchip\tcompute_capability\tcategory\tpci_id_source\tin_debian12_pciids\t"
    "nvidia_driver_names\tconfidence\tnote\n";

}  // namespace

TEST_F(KbOverride, ReplacesOnlyTheTablesPresent) {
    write("gpus.tsv", std::string(kGpuHeader) +
                          "10de:2684\tTest GPU\tAda Lovelace\tAD102\t8.9\ttest\tpci.ids\tyes\t\thigh\t\n"
                          "10de:abcd\tFuture GPU\tBlackwell\tGB202\t12.0\ttest\tpci.ids\tno\t\tlow\t\n");
    write("unrelated.tsv", "not a table at all\n");
    const auto kb = Kb::load(dir());
    ASSERT_TRUE(kb) << kb.error().message;
    EXPECT_EQ(kb->gpu_by_pci_id(0x10de, 0x2684)->name, "Test GPU");
    EXPECT_EQ(kb->gpu_by_pci_id(0x10de, 0xabcd)->compute_capability, "12.0");
    EXPECT_FALSE(kb->gpu_by_pci_id(0x10de, 0x2204));                           // the whole table is replaced
    EXPECT_EQ(kb->max_cuda_for(*Version::parse("550.54.14"))->str(), "12.4");  // others stay embedded
    EXPECT_EQ(kb->overridden_tables(), (std::vector<std::string>{"gpus.tsv"}));
    EXPECT_EQ(kb->sources().size(), Kb::builtin().sources().size());
    // The built-in KB is untouched.
    EXPECT_EQ(Kb::builtin().gpu_by_pci_id(0x10de, 0x2684)->name, "GeForce RTX 4090");
}

TEST_F(KbOverride, WrongColumnCountNamesFileAndLine) {
    write("gpus.tsv", std::string(kGpuHeader) +
                          "10de:2684\tTest GPU\tAda Lovelace\tAD102\t8.9\ttest\tpci.ids\tyes\t\thigh\t\n"
                          "10de:2685\tShort row\tAda Lovelace\tAD102\t8.9\n");
    const auto kb = Kb::load(dir());
    ASSERT_FALSE(kb);
    EXPECT_EQ(kb.error().code, Errc::parse);
    EXPECT_EQ(kb.error().message, (fs::path(dir()) / "gpus.tsv").string() + ":4: expected 11 tab-separated cells, found 5");
}

TEST_F(KbOverride, BadVersionNamesFileLineAndColumn) {
    write("cuda_driver.tsv",
          "# source: a test\n"
          "toolkit\tlabel\tmin_linux_driver\tmin_windows_driver\tdriver_branch\tminor_compat_floor_linux\t"
          "minor_compat_floor_windows\trunfile\trunfile_driver\tconfidence\tnote\n"
          "12.4.0\tCUDA 12.4 GA\t55O.54.14\t\tR550\t\t\t\t\thigh\t\n");
    const auto kb = Kb::load(dir());
    ASSERT_FALSE(kb);
    EXPECT_EQ(kb.error().code, Errc::parse);
    EXPECT_EQ(kb.error().message,
              (fs::path(dir()) / "cuda_driver.tsv").string() + ":3: column min_linux_driver: '55O.54.14' is not a version");
}

TEST_F(KbOverride, MissingSourceLineOrColumnIsRefused) {
    write("gpu_chips.tsv", "chip_prefix\tarchitecture\tcompute_capability\texamples\tconfidence\tnote\n");
    auto kb = Kb::load(dir());
    ASSERT_FALSE(kb);
    EXPECT_EQ(kb.error().message,
              (fs::path(dir()) / "gpu_chips.tsv").string() + ":1: the first line must be '# source: …' naming where the facts come from");

    write("gpu_chips.tsv", "# source: a test\nchip_prefix\tarchitecture\texamples\n");
    kb = Kb::load(dir());
    ASSERT_FALSE(kb);
    EXPECT_EQ(kb.error().message, (fs::path(dir()) / "gpu_chips.tsv").string() + ":2: missing column 'compute_capability'");
}

TEST_F(KbOverride, MissingDirectoryIsNotFound) {
    const auto kb = Kb::load(dir() + "/nope");
    ASSERT_FALSE(kb);
    EXPECT_EQ(kb.error().code, Errc::not_found);
    EXPECT_EQ(kb.error().message, "knowledge-base directory " + dir() + "/nope does not exist");
}

TEST_F(KbOverride, EmptyDirectoryIsTheBuiltinKb) {
    const auto kb = Kb::load(dir());
    ASSERT_TRUE(kb) << kb.error().message;
    EXPECT_TRUE(kb->overridden_tables().empty());
    EXPECT_EQ(kb->gpus().size(), Kb::builtin().gpus().size());
}
