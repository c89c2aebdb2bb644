#pragma once
// Rules driven as pure functions: a Snapshot literal built in the test, the builtin KB, and the
// findings one rule gives, exactly as `check` reports them (evaluate() fills in the id, layer and
// severity). The builders make the smallest consistent facts a probe would record; a case
// changes only the fields its rule reads.
//
// Convention kept by tests/unit/rules_coverage_test.cpp: a case that must fire calls
// fired("rule-id", …) and one that must stay silent calls silent("rule-id", …), each with the id
// written out, so the coverage test can find both for every rule in all_rules().
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "kb/kb.hpp"
#include "rules/rules.hpp"
#include "snapshot/snapshot.hpp"

// Its own namespace: the test executable builds as unity units, where these short names
// (gpu, driver, toolkit) would meet other test files' helpers.
namespace cudoctor::test::rule_cases {

/// The findings of rule `id` on `snap` with the builtin KB, in report order; empty when it stays
/// silent. A test of an id that is not in the table fails here (a renamed rule is not "silent").
inline std::vector<snapshot::Finding> fired(std::string_view id, const snapshot::Snapshot& snap) {
    EXPECT_NE(rules::find_rule(id), nullptr) << "no rule " << id;
    std::vector<snapshot::Finding> out;
    for (auto& f : rules::evaluate(snap, kb::Kb::builtin()))
        if (f.id == id) out.push_back(std::move(f));
    return out;
}

/// Success when rule `id` gives nothing on `snap`; else the titles it gave.
inline ::testing::AssertionResult silent(std::string_view id, const snapshot::Snapshot& snap) {
    if (rules::find_rule(id) == nullptr) return ::testing::AssertionFailure() << "no rule " << id;
    const auto found = fired(id, snap);
    if (found.empty()) return ::testing::AssertionSuccess();
    auto failure = ::testing::AssertionFailure() << id << " fired:";
    for (const auto& f : found) failure << "\n  [" << f.severity << "] " << f.title;
    return failure;
}

/// Whether some evidence line of `f` has `text` in its source or its detail.
inline bool evidence_mentions(const snapshot::Finding& f, std::string_view text) {
    return std::any_of(f.evidence.begin(), f.evidence.end(), [&](const snapshot::Evidence& e) {
        return e.source.find(text) != std::string::npos || e.detail.find(text) != std::string::npos;
    });
}

// --- builders: the facts a probe records, no more ------------------------------------------------

/// A GPU on the PCI bus, bound to the nvidia driver.
inline snapshot::Gpu gpu(std::string name, std::string compute_capability, std::string architecture = {},
                         std::string bus_id = "0000:01:00.0") {
    snapshot::Gpu g;
    g.bus_id = std::move(bus_id);
    g.pci_device_id = "10de:0000";
    g.pci_class = "0x030000";
    g.name = std::move(name);
    g.architecture = std::move(architecture);
    g.compute_capability = std::move(compute_capability);
    g.name_source = "kb";
    g.bound_driver = "nvidia";
    return g;
}

/// A loaded driver whose kernel module and user-space libraries are both `version`.
inline snapshot::Driver driver(const std::string& version) {
    snapshot::Driver d;
    d.kernel_module_version = version;
    d.flavour = snapshot::ModuleFlavour::proprietary;
    d.modules_known = true;
    d.loaded_modules = {"nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm"};
    d.user_space_versions = {version};
    d.libraries = {{"libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so." + version, version}};
    return d;
}

/// A toolkit installed by the runfile at `path` (default /usr/local/cuda-<major.minor>) with its
/// nvcc; not the /usr/local/cuda one and not on PATH until the case says so.
inline snapshot::Toolkit toolkit(const std::string& version, std::string path = {}) {
    snapshot::Toolkit tk;
    tk.version = version;
    tk.version_source = "version.json";
    if (path.empty()) path = "/usr/local/cuda-" + version.substr(0, version.find('.', version.find('.') + 1));
    tk.path = std::move(path);
    tk.install_method = snapshot::InstallMethod::runfile;
    tk.has_nvcc = true;
    tk.nvcc_path = tk.path + "/bin/nvcc";
    tk.found_by = {"/usr/local/cuda-*"};
    return tk;
}

/// `tk` as the nvcc PATH finds first (also recorded in the environment's nvcc list).
inline snapshot::Toolkit& put_first_on_path(snapshot::Snapshot& s, snapshot::Toolkit& tk) {
    tk.first_on_path = true;
    tk.on_path = true;
    s.environment.path.insert(s.environment.path.begin(), tk.path + "/bin");
    s.environment.nvcc_on_path.insert(s.environment.nvcc_on_path.begin(), tk.nvcc_path);
    s.environment.nvcc_on_path_real.insert(s.environment.nvcc_on_path_real.begin(), tk.nvcc_path);
    return tk;
}

/// A framework in `site`, built with CUDA `cuda` (nullopt: a CPU build).
inline snapshot::Framework framework(std::string name, std::string version, std::optional<std::string> cuda,
                                     std::string site = "/home/alice/.local/lib/python3.10/site-packages") {
    snapshot::Framework fw;
    fw.name = std::move(name);
    fw.version = std::move(version);
    fw.cuda = std::move(cuda);
    fw.python = std::move(site);
    fw.interpreter = "/usr/bin/python3";
    return fw;
}

/// One existing LD_LIBRARY_PATH folder (its real path is itself) bringing `cuda_libraries`.
inline snapshot::LibraryPathEntry ld_path_entry(const std::string& path, std::vector<std::string> cuda_libraries = {}) {
    snapshot::LibraryPathEntry e;
    e.path = path;
    e.exists = true;
    e.real_path = path;
    e.cuda_libraries = std::move(cuda_libraries);
    return e;
}

/// One loader-cache entry for `soname` in the folder `dir` (its real folder).
inline snapshot::LoaderEntry cache_entry(const std::string& soname, const std::string& dir) {
    return {soname, dir + "/" + soname, "x86-64", dir};
}

/// NVIDIA's CUDA repository for `repo` ("ubuntu2204") as cuda-keyring writes it: one line in
/// `file` (by default its own sources.list.d file), signed by cuda-archive-keyring.gpg.
inline snapshot::AptSource nvidia_source(const std::string& repo, const std::string& file = {}) {
    snapshot::AptSource a;
    a.file = file.empty() ? "/etc/apt/sources.list.d/cuda-" + repo + "-x86_64.list" : file;
    a.line = 1;
    a.uri = "https://developer.download.nvidia.com/compute/cuda/repos/" + repo + "/x86_64/";
    a.suite = "/";
    a.signed_by = "/usr/share/keyrings/cuda-archive-keyring.gpg";
    return a;
}

/// An Ubuntu 22.04 x86_64 machine with gcc 11, no GPU, no driver, nothing CUDA yet.
inline snapshot::Snapshot ubuntu_machine() {
    snapshot::Snapshot s;
    s.root = "/";
    s.platform.os_id = "ubuntu";
    s.platform.os_version = "22.04";
    s.platform.os_pretty = "Ubuntu 22.04.4 LTS";
    s.platform.kernel = "6.5.0-27-generic";
    s.platform.arch = "x86_64";
    s.platform.glibc = "2.35";
    s.platform.gcc_default = 11;
    s.platform.gcc_installed = {11};
    s.platform.c_compiler = "/usr/bin/gcc";
    s.platform.secure_boot = "disabled";
    s.environment.path = {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"};
    s.environment.loader_cache_format = "new";
    return s;
}

/// ubuntu_machine() with an RTX 4090 (compute 8.9) and driver `driver_version` loaded.
inline snapshot::Snapshot gpu_machine(const std::string& driver_version = "550.54.14") {
    auto s = ubuntu_machine();
    s.gpus = {gpu("GeForce RTX 4090", "8.9", "Ada Lovelace")};
    s.driver = driver(driver_version);
    return s;
}

}  // namespace cudoctor::test::rule_cases
