// The probes' work on the second core (issue #25): the same snapshot as on one, on every
// fixture machine and this one; a listing read ahead is the one list_dir() and glob() give; a
// part taken from the worker adds its notes where the probe would; a library's .rodata read in
// two halves names what one pass names.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <string>
#include <vector>

#include "common/worker.hpp"
#include "formats/elf.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "probe/ahead.hpp"
#include "probe/context.hpp"
#include "snapshot/snapshot_json.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace cudoctor;
using cudoctor::test::TempDir;

namespace {

/// The snapshot of `host` as JSON text, probed on one core or two; the clock pinned.
std::string probed(const host::Host& host, bool second_core) {
    ::setenv("CUDOCTOR_OVERRIDE_TIME", "2026-12-04T12:00:00Z", 1);
    probe::Options options;
    options.allow_processes = false;  // the same facts either way, and no nvcc run per call
    options.second_core = second_core;
    auto json = snapshot::to_json_value(probe::probe_machine(host, kb::Kb::builtin(), options)).dump(1);
    ::unsetenv("CUDOCTOR_OVERRIDE_TIME");
    return json;
}

std::string listing(const Expected<std::vector<std::string>>& names) {
    if (!names) return "error: " + names.error().message;
    std::string out;
    for (const auto& n : *names) out += n + " ";
    return out;
}

/// Waits until every task posted to `worker` before this call has ended (tasks run in order),
/// without taking any of them.
void drain(Worker& worker) {
    std::promise<void> reached;
    auto done = reached.get_future();
    auto marker = worker.post([&] {
        reached.set_value();
        return 0;
    });
    ASSERT_EQ(done.wait_for(std::chrono::seconds(20)), std::future_status::ready);
    marker.get();
}

}  // namespace

TEST(ProbeAhead, EveryFixtureMachineGivesTheSameSnapshotOnOneCoreOrTwo) {
    int machines = 0;
    for (const auto& root : fs::directory_iterator(CUDOCTOR_ROOTS_DIR)) {
        if (!root.is_directory()) continue;
        auto host = host::Host::rooted(root.path().string());
        ASSERT_TRUE(host) << root.path();
        const std::string one = probed(*host, false);
        for (int run = 0; run < 3; ++run) ASSERT_EQ(probed(*host, true), one) << root.path() << " run " << run;
        ++machines;
    }
    EXPECT_GT(machines, 20);
}

TEST(ProbeAhead, ThisMachineGivesTheSameSnapshotOnOneCoreOrTwo) {
    // Real sizes: dpkg's whole status file and log, a library folder of thousands of names,
    // the toolkit's cuDNN 9 (its 3.7 MB .rodata read in two halves where it is installed).
    const auto host = host::Host::real();
    const std::string one = probed(host, false);
    for (int run = 0; run < 3; ++run) EXPECT_EQ(probed(host, true), one) << "run " << run;
}

TEST(ProbeAhead, BrokenFilesGiveTheSameNotesInTheSameOrder) {
    TempDir t;
    t.write("etc/ld.so.cache", "not a loader cache");
    t.mkdir("var/log/dpkg.log");  // a folder where the log should be: a note, not a crash
    t.link("var/log/apt/history.log", "history.log");
    t.write("var/lib/dpkg/status", "Package: nvidia-driver-550\nStatus: install ok installed\nVersion: 550.54.14-1\n");
    auto host = host::Host::rooted(t.str());
    ASSERT_TRUE(host);
    const std::string one = probed(*host, false);
    EXPECT_NE(one.find("ld.so.cache"), std::string::npos);
    EXPECT_NE(one.find("/var/log/dpkg.log"), std::string::npos);
    EXPECT_NE(one.find("/var/log/apt/history.log"), std::string::npos);
    for (int run = 0; run < 5; ++run) EXPECT_EQ(probed(*host, true), one) << "run " << run;
}

TEST(ProbeAhead, AListingReadAheadIsTheOneListDirAndGlobGive) {
    TempDir t;
    for (const char* n : {"libcuda.so.1", "libcudart.so.12", "libc.so.6", "zz"}) t.write(std::string("usr/lib/") + n, "x");
    auto host = host::Host::rooted(t.str());
    ASSERT_TRUE(host);
    for (const bool threaded : {false, true}) {
        Worker worker(threaded);
        const auto scope = host->cache_scope();
        host->list_ahead("/usr/lib", worker);
        if (threaded) drain(worker);
        // Added after it was listed ahead (threaded) or before its first use (inline): the
        // threaded listing must not see it, as a cached listing would not.
        t.write("usr/lib/libcudnn.so.9", "x");
        const std::string expected =
            threaded ? "libc.so.6 libcuda.so.1 libcudart.so.12 zz " : "libc.so.6 libcuda.so.1 libcudart.so.12 libcudnn.so.9 zz ";
        EXPECT_EQ(listing(host->list_dir("/usr/lib")), expected);
        std::vector<std::string> globbed = {"/usr/lib/libcuda.so.1", "/usr/lib/libcudart.so.12"};
        if (!threaded) globbed.emplace_back("/usr/lib/libcudnn.so.9");
        EXPECT_EQ(host->glob("/usr/lib", "libcud*"), globbed);
        fs::remove(t.path() / "usr/lib/libcudnn.so.9");
    }
}

TEST(ProbeAhead, AheadListingsThatFailFailAsWithout) {
    TempDir t;
    t.write("usr/lib/file", "x");
    t.link("usr/lib/loop", "loop");
    auto host = host::Host::rooted(t.str());
    ASSERT_TRUE(host);
    std::vector<std::string> plain;
    for (const char* dir : {"/usr/lib/file", "/usr/lib/missing", "/usr/lib/loop", "/usr/lib"})
        plain.push_back(listing(host->list_dir(dir)));
    EXPECT_EQ(plain[0].rfind("error: /usr/lib/file: ", 0), 0u) << plain[0];
    Worker worker(true);
    {
        const auto scope = host->cache_scope();
        for (const char* dir : {"/usr/lib/file", "/usr/lib/missing", "/usr/lib/loop", "/usr/lib"}) host->list_ahead(dir, worker);
        drain(worker);
        int i = 0;
        for (const char* dir : {"/usr/lib/file", "/usr/lib/missing", "/usr/lib/loop", "/usr/lib"})
            EXPECT_EQ(listing(host->list_dir(dir)), plain[i++]) << dir;
    }
    // Without a cache scope nothing is read ahead: the folder is read at its use.
    host->list_ahead("/usr/lib", worker);
    t.write("usr/lib/new", "x");
    EXPECT_EQ(listing(host->list_dir("/usr/lib")), "file loop new ");
}

TEST(ProbeAhead, APartNotStartedOrTakenAlreadyIsDoneWhereItIsAskedFor) {
    TempDir t;
    t.write("etc/ld.so.cache", "not a loader cache");
    auto host = host::Host::rooted(t.str());
    ASSERT_TRUE(host);
    const probe::Options options;
    snapshot::Snapshot started_snap, fresh_snap, again_snap;
    probe::Context started(*host, kb::Kb::builtin(), options, started_snap), fresh(*host, kb::Kb::builtin(), options, fresh_snap),
        again(*host, kb::Kb::builtin(), options, again_snap);
    Worker worker(true);
    probe::Ahead ahead;
    ahead.start(probe::Part::loader_cache, started, worker);
    ahead.take(probe::Part::loader_cache, started);
    ahead.take(probe::Part::loader_cache, again);  // taken already: done again, here
    probe::Ahead never_started;
    never_started.take(probe::Part::loader_cache, fresh);
    ASSERT_EQ(started_snap.notes.size(), 1u);
    EXPECT_EQ(started_snap.notes[0].path, "/etc/ld.so.cache");
    EXPECT_EQ(fresh_snap.notes, started_snap.notes);
    EXPECT_EQ(again_snap.notes, started_snap.notes);
    EXPECT_FALSE(started.ld_cache);
}

TEST(ProbeAhead, LibraryNamesInTwoPartsAreTheNamesOfTheWhole) {
    // Every cut of every text into two parts, each read in pieces of every size: merged, the
    // names of one pass over the whole, in its order.
    const std::vector<std::string_view> stems = {"libcublasLt", "libcublas", "libnvrtc", "libcudart"};
    std::mt19937 rng(29);
    const std::vector<std::string> pieces = {"libcublas", "libcublasLt", "libnvrtc", "libcudart", ".so.", ".so",
                                             ".",         "1",           "12",       "x",         "-",    std::string(1, '\0')};
    std::vector<std::string> texts = {"libcublasLt.so.13 libnvrtc.so.13", "libnvrtc.so.13 libcublasLt.so.13 libnvrtc.so.13"};
    for (int i = 0; i < 150; ++i) {
        std::string t;
        for (int k = static_cast<int>(rng() % 24); k > 0; --k) t += pieces[rng() % pieces.size()];
        texts.push_back(t);
    }
    int compared = 0;
    for (const auto& t : texts) {
        auto read = [&](std::uint64_t offset, std::uint64_t length, char* to) {
            if (offset > t.size() || length > t.size() - offset) return false;
            std::copy_n(t.data() + offset, length, to);
            return true;
        };
        const auto whole = formats::library_names_in(t, stems);
        for (std::size_t cut = 0; cut <= t.size(); ++cut)
            for (std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{16}, t.size() + 1}) {
                auto first = formats::library_names_read_part(t.size(), 0, cut, piece, read, stems);
                auto second = formats::library_names_read_part(t.size(), cut, t.size(), piece, read, stems);
                ASSERT_TRUE(first && second);
                // The second half first, as a worker may finish first: the merge orders them.
                second->insert(second->end(), first->begin(), first->end());
                ASSERT_EQ(formats::merge_library_names(std::move(*second)), whole) << t << " cut at " << cut << " in pieces of " << piece;
                ++compared;
            }
    }
    EXPECT_GT(compared, 10000);
}

TEST(ProbeAhead, DriverPackageChangesAreFoundWhateverWordTheirNameHolds) {
    // The logs are searched for "nvidia", "cuda-drivers" and "libcuda1" only: the driver
    // packages named without "nvidia" are still found, a toolkit's cuda-* lines are not kept.
    TempDir t;
    t.write("var/log/dpkg.log",
            "2024-06-12 06:41:26 install cuda-toolkit-12-4:amd64 <none> 12.4.1-1\n"
            "2024-06-12 06:41:27 install cuda-drivers:amd64 <none> 550.54.15-1\n"
            "2024-06-12 06:41:28 status installed cuda-drivers:amd64 550.54.15-1\n"
            "2024-06-12 06:41:29 upgrade libcuda1:amd64 535.183.01-1 550.54.14-1\n"
            "2024-06-12 06:41:30 install nvidia-driver-550:amd64 <none> 550.54.14-1\n"
            "2024-06-12 06:41:31 remove cuda-12-4:amd64 12.4.1-1 <none>\n");
    auto host = host::Host::rooted(t.str());
    ASSERT_TRUE(host);
    for (const bool second_core : {false, true}) {
        probe::Options options;
        options.allow_processes = false;
        options.second_core = second_core;
        const auto snap = probe::probe_machine(*host, kb::Kb::builtin(), options);
        std::vector<std::string> changed;
        for (const auto& e : snap.driver.package_events) changed.push_back(e.action + " " + e.package);
        EXPECT_EQ(changed, (std::vector<std::string>{"install cuda-drivers", "upgrade libcuda1", "install nvidia-driver-550"}));
    }
    // apt's history naming only cuda-drivers: read, not skipped for want of "nvidia".
    t.write("var/log/apt/history.log",
            "\nStart-Date: 2024-06-13  10:00:00\nCommandline: apt-get install cuda-drivers\n"
            "Install: cuda-drivers:amd64 (560.35.03-1)\nEnd-Date: 2024-06-13  10:00:09\n");
    const auto snap = probe::probe_machine(*host, kb::Kb::builtin(), probe::Options{});
    ASSERT_EQ(snap.driver.package_events.size(), 1u);
    EXPECT_EQ(snap.driver.package_events[0].package, "cuda-drivers");
    EXPECT_EQ(snap.driver.package_events[0].source, "/var/log/apt/history.log");
}
