// Sanity of the embedded data/*.tsv tables: they parse, keys are unique, ordered tables are in
// order, and the tables agree with each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "common/text.hpp"
#include "kb/embedded.hpp"
#include "kb/kb.hpp"
#include "kb/table.hpp"

using cudoctor::Version;
using cudoctor::kb::Kb;
using cudoctor::kb::Table;

namespace {

const Kb& kb_tables() { return Kb::builtin(); }

std::set<std::string> known_capabilities() {
    std::set<std::string> ccs;
    for (const auto& a : kb_tables().arch_table()) ccs.insert(a.compute_capability);
    return ccs;
}

}  // namespace

TEST(KbSanity, EveryEmbeddedTableParsesWithSourceAndFullRows) {
    const auto& tables = cudoctor::kb::embedded_tables();
    ASSERT_FALSE(tables.empty());
    for (const auto& embedded : tables) {
        SCOPED_TRACE(std::string(embedded.name));
        EXPECT_TRUE(cudoctor::text::starts_with(embedded.text, "# source: "));
        const auto table = Table::parse(embedded.name, embedded.text);
        ASSERT_TRUE(table) << table.error().message;
        EXPECT_GT(table->source().size(), 20u);
        EXPECT_FALSE(table->rows().empty());
        for (const auto& row : table->rows()) {
            EXPECT_EQ(row.cells.size(), table->header().size()) << row.line;
        }
    }
    // Every embedded table is read: by the KB, or by its own room (error_catalog.tsv by explain's
    // catalog loader, xid_codes.tsv by watch/xid_catalog.cpp).
    ASSERT_TRUE(Kb::load());
    const auto other_readers = std::count_if(tables.begin(), tables.end(),
                                             [](const auto& t) { return t.name == "error_catalog.tsv" || t.name == "xid_codes.tsv"; });
    EXPECT_EQ(kb_tables().sources().size() + static_cast<std::size_t>(other_readers), tables.size());
}

TEST(KbSanity, EmbeddedTablesStayTiny) {
    std::size_t total = 0;
    for (const auto& embedded : cudoctor::kb::embedded_tables()) total += embedded.text.size();
    // 238 KB on 2026-12-03, 87 KB of it the error catalog once it covered message families
    // rather than sentences (#21): still a fraction of a percent of the binary.
    EXPECT_LT(total, 320u * 1024u);
}

TEST(KbSanity, ToolkitReleasesAreUniqueOrderedAndDriversNeverDecrease) {
    const auto& rows = kb_tables().toolkit_releases();
    ASSERT_GT(rows.size(), 50u);
    std::optional<Version> last_driver;
    std::map<int, Version> compat_floor;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& t = rows[i];
        SCOPED_TRACE(t.toolkit.str());
        if (i > 0) {
            EXPECT_LT(rows[i - 1].toolkit, t.toolkit) << "out of order or duplicated";
        }
        if (t.min_linux_driver) {
            if (last_driver) {
                EXPECT_GE(*t.min_linux_driver, *last_driver) << "minimum driver decreases";
            }
            last_driver = t.min_linux_driver;
        }
        if (t.minor_compat_floor_linux) {
            const auto [it, fresh] = compat_floor.emplace(t.toolkit.major(), *t.minor_compat_floor_linux);
            EXPECT_EQ(it->second, *t.minor_compat_floor_linux) << "floor differs within a major";
            EXPECT_GE(t.toolkit.major(), 11);
        }
        if (!t.runfile.empty()) {
            EXPECT_TRUE(cudoctor::text::starts_with(t.runfile, "cuda_" + t.toolkit.str() + "_")) << t.runfile;
        }
        if (t.runfile_driver) {
            EXPECT_TRUE(cudoctor::text::contains(t.runfile, "_")) << t.runfile;
        }
    }
}

TEST(KbSanity, CompilerLimitsAreUniqueOrderedAndNeverDecrease) {
    const auto& rows = kb_tables().host_compiler_table();
    std::optional<int> last_gcc, last_clang;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& c = rows[i];
        SCOPED_TRACE(c.toolkit_from.str());
        if (i > 0) {
            EXPECT_LT(rows[i - 1].toolkit_from, c.toolkit_from);
        }
        // Every row is for a toolkit minor that cuda_driver.tsv knows.
        EXPECT_TRUE(kb_tables().toolkit_release(c.toolkit_from));
        if (c.max_gcc) {
            if (last_gcc) {
                EXPECT_GE(*c.max_gcc, *last_gcc);
            }
            last_gcc = c.max_gcc;
        }
        if (c.max_clang) {
            if (last_clang) {
                EXPECT_GE(*c.max_clang, *last_clang);
            }
            last_clang = c.max_clang;
        }
    }
}

TEST(KbSanity, ArchitecturesAreUniqueAndRangesConsistent) {
    std::set<std::string> sms, ccs;
    const Version cuda13 = *Version::parse("13.0");
    for (const auto& a : kb_tables().arch_table()) {
        SCOPED_TRACE(a.sm);
        EXPECT_TRUE(sms.insert(a.sm).second) << "duplicate sm";
        EXPECT_TRUE(ccs.insert(a.compute_capability).second) << "duplicate compute capability";
        // sm_89 ↔ 8.9, sm_90a ↔ 9.0a, sm_120 ↔ 12.0
        std::string digits = a.compute_capability;
        digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
        EXPECT_EQ(a.sm, "sm_" + digits);
        if (a.first_cuda && a.last_cuda) {
            EXPECT_LE(*a.first_cuda, *a.last_cuda);
        }
        if (a.last_cuda && a.removed_in) {
            EXPECT_LT(*a.last_cuda, *a.removed_in);
        }
        if (a.deprecated_in && a.removed_in) {
            EXPECT_LE(*a.deprecated_in, *a.removed_in);
        }
        if (a.last_cuda) {
            EXPECT_TRUE(a.removed_in) << "a last toolkit needs the one that removed it";
        }
        if (a.nvcc_13_0_accepts == true) {
            EXPECT_FALSE(a.removed_in && *a.removed_in <= cuda13);
            EXPECT_FALSE(a.first_cuda && *a.first_cuda > cuda13);
        }
        if (a.nvcc_13_0_accepts == false && a.first_cuda) {
            EXPECT_TRUE((a.removed_in && *a.removed_in <= cuda13) || *a.first_cuda > cuda13);
        }
    }
}

TEST(KbSanity, GpusHaveUniquePciIdsAndKnownCapabilities) {
    const auto ccs = known_capabilities();
    std::set<std::pair<std::uint16_t, std::uint16_t>> ids;
    for (const auto& g : kb_tables().gpus()) {
        SCOPED_TRACE(g.info.name);
        EXPECT_TRUE(ccs.contains(g.info.compute_capability)) << g.info.compute_capability;
        EXPECT_FALSE(g.info.architecture.empty());
        EXPECT_FALSE(g.info.chip.empty());
        if (!g.pci_id) continue;
        EXPECT_EQ(g.pci_id->first, 0x10de);
        EXPECT_TRUE(ids.insert(*g.pci_id).second) << "duplicate PCI id " << std::hex << g.pci_id->second;
        // gpu_chips.tsv agrees with the row: same architecture and compute capability.
        const auto chip = kb_tables().gpu_chip(g.info.chip);
        ASSERT_TRUE(chip) << g.info.chip;
        EXPECT_EQ(chip->architecture, g.info.architecture) << g.info.chip;
        EXPECT_EQ(chip->compute_capability, g.info.compute_capability) << g.info.chip;
    }
    EXPECT_GT(ids.size(), 180u);
}

TEST(KbSanity, ChipsAndKernelModulesUseKnownArchitectures) {
    const auto ccs = known_capabilities();
    std::set<std::string> prefixes, architectures;
    for (const auto& a : kb_tables().arch_table()) architectures.insert(a.architecture);
    for (const auto& c : kb_tables().gpu_chips()) {
        EXPECT_TRUE(prefixes.insert(c.prefix).second) << "duplicate prefix " << c.prefix;
        EXPECT_TRUE(ccs.contains(c.compute_capability)) << c.prefix;
        EXPECT_TRUE(architectures.contains(c.architecture)) << c.prefix;
    }
    std::set<std::string> module_archs;
    for (const auto& k : kb_tables().kernel_module_table()) {
        EXPECT_TRUE(module_archs.insert(k.architecture).second) << k.architecture;
        EXPECT_TRUE(architectures.contains(k.architecture)) << k.architecture;
        EXPECT_TRUE(k.open || k.proprietary) << k.architecture;
    }
    // Every architecture a current driver runs (Maxwell and newer PCI GPUs) has a module row.
    for (const auto& g : kb_tables().gpus()) {
        if (g.pci_id && g.info.architecture != "Kepler") {
            EXPECT_TRUE(module_archs.contains(g.info.architecture)) << g.info.architecture;
        }
    }
}

TEST(KbSanity, CudnnRowsAreOrderedAndUnique) {
    const auto ccs = known_capabilities();
    std::set<std::string> keys;
    const auto& rows = kb_tables().cudnn_table();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& c = rows[i];
        SCOPED_TRACE(c.cudnn_first.str() + " / " + c.cuda_min.str());
        if (i > 0) {
            EXPECT_LE(rows[i - 1].cudnn_first, c.cudnn_first);
        }
        EXPECT_TRUE(
            keys.insert(c.cudnn_first.str() + "|" + c.package_variant + "|" + c.cuda_min.str() + "|" + c.cuda_max.str() + "|" + c.cc_max).second)
            << "duplicate row";
        if (!c.cc_min.empty()) {
            EXPECT_TRUE(ccs.contains(c.cc_min)) << c.cc_min;
        }
        if (!c.cc_max.empty()) {
            EXPECT_TRUE(ccs.contains(c.cc_max)) << c.cc_max;
        }
        EXPECT_FALSE(c.source.empty());
    }
}

TEST(KbSanity, TorchWheelsAgreeWithCudaAndCudnnTables) {
    const auto ccs = known_capabilities();
    std::set<std::string> keys;
    std::map<std::string, int> pypi_defaults;
    for (const auto& w : kb_tables().torch_table()) {
        SCOPED_TRACE(w.torch.str() + " " + w.variant);
        EXPECT_TRUE(keys.insert(w.torch.str() + "|" + w.variant).second) << "duplicate wheel";
        std::string digits = w.cuda.str();
        digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
        EXPECT_EQ(w.variant, "cu" + digits);
        EXPECT_TRUE(kb_tables().toolkit_release(w.cuda)) << "wheel CUDA unknown to cuda_driver.tsv";
        for (const auto& arch : w.cuda_archs) {
            EXPECT_TRUE(ccs.contains(arch)) << arch;
        }
        for (const auto& arch : w.cuda_archs_aarch64) {
            EXPECT_TRUE(ccs.contains(arch)) << arch;
        }
        if (w.pypi_default) ++pypi_defaults[w.torch.str()];
        if (w.bundled_cudnn) {
            EXPECT_EQ(kb_tables().cudnn_supports_cuda(*w.bundled_cudnn, w.cuda), true)
                << "bundled cuDNN " << w.bundled_cudnn->str() << " not listed for CUDA " << w.cuda.str();
        }
    }
    for (const auto& [torch, count] : pypi_defaults) {
        EXPECT_EQ(count, 1) << torch;
    }
}

TEST(KbSanity, TensorflowDistroAndPackageKeysAreUnique) {
    std::set<std::string> tf;
    for (const auto& t : kb_tables().tensorflow_table()) {
        EXPECT_TRUE(tf.insert(t.tensorflow.str() + "|" + t.platform).second) << t.tensorflow.str();
        EXPECT_TRUE(t.platform == "Linux" || t.platform == "Windows") << t.platform;
    }
    std::set<std::string> distros;
    for (const auto& d : kb_tables().distro_table()) {
        EXPECT_TRUE(distros.insert(d.distro + "|" + d.version).second) << d.distro << d.version;
    }
    // Placeholders are the documented ones; every template fills with all of them given.
    const std::map<std::string, std::string> all = {{"branch", "580"},     {"major", "12"},        {"minor", "4"},
                                                    {"release", "12.4.1"}, {"runfile", "r"},       {"distro", "d"},
                                                    {"arch", "x86_64"},    {"flavour", "generic"}, {"cudnn", "9.1.0"},
                                                    {"gcc", "12"},         {"variant", "cu124"},   {"kernel", "6.8.0-40-generic"}};
    std::set<std::string> names;
    for (const auto& p : kb_tables().package_table()) {
        EXPECT_TRUE(names.insert(p.name).second) << p.name;
        EXPECT_TRUE(kb_tables().package_name(p.name, all)) << p.name << ": " << p.text;
    }
}
