// `check` reads only what its facts need, each file once (issue #25): these tests hold each fast
// path to the plain one it replaced, on every fixture machine, on this machine's own files where
// it has them, and on generated text. (bench/check_same_output.sh compares whole reports of an
// old and a new binary.)
#include <gtest/gtest.h>

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "formats/dpkg_status.hpp"
#include "formats/elf.hpp"
#include "formats/package_logs.hpp"
#include "host/host.hpp"
#include "host/mapped_file.hpp"
#include "kb/kb.hpp"
#include "probe/context.hpp"
#include "probe/cuda_libs.hpp"
#include "support/files.hpp"

namespace fs = std::filesystem;
using namespace cudoctor;

namespace {

const std::string kFixtureRoots = std::string(CUDOCTOR_SOURCE_DIR) + "/tests/fixtures/roots";

/// The file at `relative` in every fixture machine that has it, then this machine's own.
std::vector<std::string> corpus(const std::string& relative) {
    std::vector<std::string> out;
    for (const auto& root : fs::directory_iterator(kFixtureRoots)) {
        const auto file = root.path() / relative;
        if (fs::is_regular_file(file)) out.push_back(test::slurp(file.string()));
    }
    std::ifstream in("/" + relative, std::ios::binary);
    if (in) out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return out;
}

/// Lines drawn from `pieces`, joined with LF or CRLF: text no real file has, to meet the corners.
std::string random_text(std::mt19937& rng, const std::vector<std::string>& pieces, int lines) {
    std::string out;
    for (int i = 0; i < lines; ++i) {
        out += pieces[rng() % pieces.size()];
        out += (rng() % 5 == 0) ? "\r\n" : "\n";
    }
    if (rng() % 2) out.pop_back();  // sometimes no final newline
    return out;
}

void expect_same_packages(std::string_view text) {
    const auto plain = formats::parse_dpkg_status(text);
    std::vector<formats::DpkgPackage> fast;
    formats::for_each_dpkg_package(text, [&](const formats::DpkgStanzaView& v) {
        fast.push_back(
            {std::string(v.name), std::string(v.version), std::string(v.architecture), std::string(v.status), std::string(v.source)});
        EXPECT_EQ(v.installed(), fast.back().installed());
        EXPECT_EQ(v.held(), fast.back().held());
    });
    ASSERT_EQ(fast.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
        EXPECT_EQ(fast[i].name, plain[i].name) << i;
        EXPECT_EQ(fast[i].version, plain[i].version) << plain[i].name;
        EXPECT_EQ(fast[i].architecture, plain[i].architecture) << plain[i].name;
        EXPECT_EQ(fast[i].status, plain[i].status) << plain[i].name;
        EXPECT_EQ(fast[i].source, plain[i].source) << plain[i].name;
    }
}

TEST(ProbeFastPaths, DpkgStatusScanMatchesTheParserOnEveryStatusFile) {
    const auto files = corpus("var/lib/dpkg/status");
    ASSERT_GE(files.size(), 20u);  // the fixture machines have them
    for (const auto& text : files) expect_same_packages(text);
}

TEST(ProbeFastPaths, DpkgStatusScanMatchesTheParserOnOddText) {
    expect_same_packages("");
    expect_same_packages("\n\n");
    expect_same_packages("Package: a\nStatus: hold ok installed\nVersion: 1\nSource: s (2)\n");
    expect_same_packages("package: a\r\nSTATUS:  install ok installed \r\n \t\r\nPackage: b\nVersion: 2\nVersion: 3\n#Package: c\n");
    expect_same_packages("Version: 1\n\nPackage:\nStatus: x\n\nno colon\nPackage: d\n Package: e\n");
    // A ':' at more than one of the kept names' lengths, or before them: the first one ends the name.
    expect_same_packages("Status:: install ok installed\nPackage:: a\nVersion:1:2\nArchitecture:: amd64\n\nPackage: b\nSt:tus: x\n");
    expect_same_packages("Package:a\nStatus:install ok installed\nSource:s\n\nPa:kage: c\nSourcex: d\nArchitectur: e\nPackages: f\n");
    std::mt19937 rng(25);
    const std::vector<std::string> pieces = {"Package: libc6",
                                             "Package: nvidia-driver-535",
                                             "package: gcc",
                                             "Status: install ok installed",
                                             "Status: hold ok installed",
                                             "Status: deinstall ok config-files",
                                             "Version: 2.36-9",
                                             "VERSION:1.0",
                                             "Source: glibc (2.36-9)",
                                             "Source:",
                                             "Architecture: amd64",
                                             "",
                                             " ",
                                             "\t",
                                             " .",
                                             " Package: fake",
                                             "#comment",
                                             "no colon here",
                                             "Description: x: y",
                                             "Status::x",
                                             "Version:",
                                             "Architecture::"};
    for (int i = 0; i < 300; ++i) expect_same_packages(random_text(rng, pieces, 1 + static_cast<int>(rng() % 40)));
}

bool driver_like(std::string_view package) { return package.starts_with("nvidia") || package.starts_with("libnvidia") || package == "b"; }

void expect_same_dpkg_log(std::string_view text) {
    std::vector<formats::DpkgLogAction> plain;
    for (auto& a : formats::parse_dpkg_log(text))
        if (driver_like(a.package)) plain.push_back(std::move(a));
    const auto fast = formats::parse_dpkg_log(text, driver_like);
    ASSERT_EQ(fast.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
        EXPECT_EQ(fast[i].when, plain[i].when);
        EXPECT_EQ(fast[i].action, plain[i].action);
        EXPECT_EQ(fast[i].package, plain[i].package);
        EXPECT_EQ(fast[i].old_version, plain[i].old_version);
        EXPECT_EQ(fast[i].new_version, plain[i].new_version);
    }
    // Keeping everything is the plain parse.
    EXPECT_EQ(formats::parse_dpkg_log(text, [](std::string_view) { return true; }).size(), formats::parse_dpkg_log(text).size());
    // Every name driver_like() keeps holds one of these words, so the lines holding them are
    // the whole log to it (the driver probe's memmem pre-filter).
    constexpr std::string_view kWords[] = {"nvidia", "b"};
    const auto held = formats::parse_dpkg_log(formats::lines_holding(text, kWords), driver_like);
    ASSERT_EQ(held.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
        EXPECT_EQ(held[i].when, plain[i].when);
        EXPECT_EQ(held[i].package, plain[i].package);
        EXPECT_EQ(held[i].new_version, plain[i].new_version);
    }
}

/// lines_holding() the plain way: split at each newline, keep the lines that find() a word in.
std::string reference_lines_holding(std::string_view text, std::span<const std::string_view> words) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto newline = text.find('\n', start);
        const auto end = newline == std::string_view::npos ? text.size() : newline + 1;
        const auto line = text.substr(start, end - start);
        for (const auto w : words)
            if (line.find(w) != std::string_view::npos) {
                out.append(line);
                break;
            }
        start = end;
    }
    return out;
}

TEST(ProbeFastPaths, LinesHoldingMatchesTheLineByLineSearch) {
    constexpr std::string_view kDriverWords[] = {"nvidia", "cuda"};
    constexpr std::string_view kShortWords[] = {"nvidia", "b"};  // a one-byte word: the byte-wise path
    std::vector<std::string> texts = corpus("var/log/dpkg.log");
    for (const auto& t : corpus("var/lib/dpkg/status")) texts.push_back(t);
    std::mt19937 rng(27);
    const std::vector<std::string> pieces = {
        "nvidia", "cuda", "nvidi", "cud", "xcudax", "n",      "c",        "a", "install nvidia-driver-550",
        "",       " ",    "\t",    "ab",  "cxxa",   "nxxxxa", "libcuda1", "\r"};
    for (int i = 0; i < 500; ++i) {
        std::string t;
        for (int k = static_cast<int>(rng() % 60); k > 0; --k) t += pieces[rng() % pieces.size()] + ((rng() % 3 == 0) ? "\n" : "");
        texts.push_back(std::move(t));
    }
    for (const auto& t : texts) {
        EXPECT_EQ(formats::lines_holding(t, kDriverWords), reference_lines_holding(t, kDriverWords));
        EXPECT_EQ(formats::lines_holding(t, kShortWords), reference_lines_holding(t, kShortWords));
        EXPECT_EQ(formats::holds_any(t, kDriverWords), !reference_lines_holding(t, kDriverWords).empty());
    }
}

TEST(ProbeFastPaths, LinesHoldingAWordAreWholeLinesInOrder) {
    constexpr std::string_view kWords[] = {"cuda", "nvidia"};
    EXPECT_EQ(formats::lines_holding("", kWords), "");
    EXPECT_EQ(formats::lines_holding("a\nb\n", kWords), "");
    EXPECT_EQ(formats::lines_holding("nvidia", kWords), "nvidia");
    EXPECT_EQ(formats::lines_holding("x cuda y\r\nplain\nnvidia cuda\nlast nvidia", kWords), "x cuda y\r\nnvidia cuda\nlast nvidia");
    EXPECT_EQ(formats::lines_holding("\n\ncuda\n\n", kWords), "cuda\n");
    EXPECT_TRUE(formats::holds_any("libnvidia-ml", kWords));
    EXPECT_FALSE(formats::holds_any("libc6 cud nvidi", kWords));
    EXPECT_FALSE(formats::holds_any("", kWords));
}

void expect_same_apt_history(std::string_view text) {
    const auto plain = formats::parse_apt_history(text);
    const auto fast = formats::parse_apt_history(text, driver_like);
    ASSERT_EQ(fast.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
        EXPECT_EQ(fast[i].start, plain[i].start);
        EXPECT_EQ(fast[i].commandline, plain[i].commandline);
        EXPECT_EQ(fast[i].requested_by, plain[i].requested_by);
        std::vector<formats::AptTransaction::Change> kept;
        for (const auto& c : plain[i].changes)
            if (driver_like(c.package)) kept.push_back(c);
        ASSERT_EQ(fast[i].changes.size(), kept.size()) << plain[i].start;
        for (std::size_t k = 0; k < kept.size(); ++k) {
            EXPECT_EQ(fast[i].changes[k].action, kept[k].action);
            EXPECT_EQ(fast[i].changes[k].package, kept[k].package);
            EXPECT_EQ(fast[i].changes[k].old_version, kept[k].old_version);
            EXPECT_EQ(fast[i].changes[k].new_version, kept[k].new_version);
        }
    }
}

TEST(ProbeFastPaths, FilteredPackageLogsMatchTheFilteredParse) {
    for (const auto& text : corpus("var/log/dpkg.log")) expect_same_dpkg_log(text);
    for (const auto& text : corpus("var/log/apt/history.log")) expect_same_apt_history(text);
    std::mt19937 rng(26);
    const std::vector<std::string> log_lines = {
        "2024-06-12 06:41:26 upgrade libnvidia-compute-545:amd64 535.183.01-0ubuntu1 545.29.06-0ubuntu1",
        "2024-06-12 06:41:26 install nvidia-driver-550:amd64 <none> 550.54.14-1",
        "2024-06-12  06:41:26\tremove  b 1.0 <none>",
        "2024-06-12 06:41:26 purge nvidia-dkms-550 550 <none> extra fields",
        "2024-06-12 06:41:26 status installed nvidia-driver-550:amd64 550",
        "2024-06-12 06:41:26 install nvidia-utils-550:amd64 <none>",
        "2024-6-12 06:41:26 install nvidia-utils-550:amd64 <none> 1",
        "startup archives unpack",
        "",
        "  2024-06-12 06:41:26 upgrade libc6:amd64 1 2 ",
        "2024-06-12 06:41:26 configure nvidia-driver-550:amd64 550 <none>",
        "2024-06-12 06:41:2  install nvidia-driver-550:amd64 <none> 1",
        "2024-06-1  06:41:26 install nvidia-driver-550:amd64 <none> 1",
        "2024-06-12 06:41:26\tinstall nvidia-driver-550:amd64 <none> 1",
        "2024-06-12\t06:41:26 upgrade nvidia-utils-550 1 2",
        "2024-06-12 06:41:26 trigproc nvidia-x 1 2",
    };
    for (int i = 0; i < 200; ++i) expect_same_dpkg_log(random_text(rng, log_lines, 1 + static_cast<int>(rng() % 30)));
    const std::vector<std::string> history_lines = {
        "Start-Date: 2024-06-12  06:41:07",
        "Commandline: apt-get install cuda",
        "Requested-By: alice (1000)",
        "Install: nvidia-driver-550:amd64 (550.54.14-1), libc6:amd64 (2.36, automatic), b (1)",
        "Upgrade: libnvidia-compute-545:amd64 (535.1, 545.2), nvidia-utils-545:amd64 (1, 2)",
        "Remove: nvidia-dkms-535:amd64 (535.183.01)",
        "Purge: :amd64 (1), nvidia-x (",
        "End-Date: 2024-06-12  06:41:26",
        "",
        "   ",
    };
    for (int i = 0; i < 200; ++i) expect_same_apt_history(random_text(rng, history_lines, 1 + static_cast<int>(rng() % 30)));
    // A history without any word driver_like() needs keeps no change: the probe skips its parse.
    constexpr std::string_view kWords[] = {"nvidia", "b"};
    for (const auto& text : corpus("var/log/apt/history.log")) {
        if (formats::holds_any(text, kWords)) continue;
        for (const auto& t : formats::parse_apt_history(text, driver_like)) EXPECT_TRUE(t.changes.empty()) << t.start;
    }
}

const std::vector<std::string_view> kStems = {"libcublasLt", "libcublas", "libnvrtc", "libcudart"};

// The per-stem scan library_names_in() replaced, kept as the reference it must agree with.
std::vector<std::string> reference_library_names(std::string_view bytes, const std::vector<std::string_view>& stems) {
    auto name_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-'; };
    auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
    std::vector<std::pair<std::size_t, std::string>> found;  // (first offset, name)
    for (const auto stem : stems) {
        const std::string needle = std::string(stem) + ".so.";
        for (auto at = bytes.find(needle); at != std::string_view::npos; at = bytes.find(needle, at + 1)) {
            if (at > 0 && name_char(bytes[at - 1])) continue;  // "xlibcublas.so.1": another name
            std::size_t end = at + needle.size();
            while (end < bytes.size() && end - at - needle.size() < 4 && digit(bytes[end])) ++end;
            if (end == at + needle.size()) continue;  // "libcublas.so." with no major
            std::string name(bytes.substr(at, end - at));
            bool seen = false;
            for (const auto& f : found) seen = seen || f.second == name;
            if (!seen) found.emplace_back(at, std::move(name));
        }
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    out.reserve(found.size());
    for (auto& f : found) out.push_back(std::move(f.second));
    return out;
}

TEST(ProbeFastPaths, LibraryNamesMatchTheScanPerStem) {
    const std::vector<std::string> texts = {
        "",
        "libcublas.so.",
        "libcublasLt.so.13\0libcublas.so.13\0libnvrtc.so.13.0\0libcudart.so.12",
        "xlibcublas.so.1 libcublas.so.12345 .libcudart.so.1 libcudart.so.11libcudart.so.12",
        "libcublas.so.so.1 libcublas.so.1.so.2 libcublas.so.1 libcublas.so.1",
        std::string("lib\0libnvrtc.so.9", 17),
    };
    for (const auto& t : texts) EXPECT_EQ(formats::library_names_in(t, kStems), reference_library_names(t, kStems)) << t;
    std::mt19937 rng(27);
    const std::vector<std::string> pieces = {"libcublas", "libcublasLt", "libnvrtc", "libcudart", ".so.", ".so",
                                             ".",         "1",           "12",       "x",         "-",    "\0"};
    for (int i = 0; i < 2000; ++i) {
        std::string t;
        for (int k = static_cast<int>(rng() % 30); k > 0; --k) t += pieces[rng() % pieces.size()];
        ASSERT_EQ(formats::library_names_in(t, kStems), reference_library_names(t, kStems)) << t;
    }
}

// The names of a whole range of `size` bytes read in pieces of `piece` bytes: one part, merged.
std::optional<std::vector<std::string>> names_read(std::uint64_t size, std::size_t piece,
                                                   const std::function<bool(std::uint64_t, std::uint64_t, char*)>& read) {
    auto found = formats::library_names_read_part(size, 0, size, piece, read, kStems);
    if (!found) return std::nullopt;
    return formats::merge_library_names(std::move(*found));
}

// names_read() over `bytes` cut into pieces of `piece` bytes, read from memory.
std::optional<std::vector<std::string>> names_in_pieces(std::string_view bytes, std::size_t piece) {
    auto read = [&](std::uint64_t offset, std::uint64_t length, char* to) {
        if (offset > bytes.size() || length > bytes.size() - offset) return false;
        std::copy_n(bytes.data() + offset, length, to);
        return true;
    };
    return names_read(bytes.size(), piece, read);
}

TEST(ProbeFastPaths, LibraryNamesReadInPiecesAreTheNamesOfTheWhole) {
    // Every cut of every text: a name across a cut is found once and whole, never shortened
    // ("libcublas.so.1" from a "libcublas.so.12" cut after its 1), never lost.
    std::mt19937 rng(25);
    const std::vector<std::string> pieces = {"libcublas", "libcublasLt", "libnvrtc", "libcudart", ".so.", ".so",
                                             ".",         "1",           "12",       "x",         "-",    "\0"};
    std::vector<std::string> texts = {"libcublasLt.so.13", "xlibcublas.so.1 libcublas.so.12345 libcudart.so.11libcudart.so.12"};
    for (int i = 0; i < 300; ++i) {
        std::string t;
        for (int k = static_cast<int>(rng() % 30); k > 0; --k) t += pieces[rng() % pieces.size()];
        texts.push_back(t);
    }
    for (const auto& t : texts)
        for (std::size_t piece = 1; piece <= t.size() + 1; ++piece) {
            auto names = names_in_pieces(t, piece);
            ASSERT_TRUE(names) << t;
            ASSERT_EQ(*names, reference_library_names(t, kStems)) << t << " in pieces of " << piece;
        }
    // A failed read is no answer, not a partial one.
    auto fail_second = [calls = 0](std::uint64_t, std::uint64_t, char*) mutable { return ++calls < 2; };
    EXPECT_FALSE(names_read(100, 10, fail_second));
    EXPECT_EQ(names_read(0, 10, fail_second), std::vector<std::string>{});
}

TEST(ProbeFastPaths, LibraryNamesMatchOnRealCudnnLibraries) {
    // This machine's cuDNN 9 (CUDA 13.0) where it has one, and the fixture machines' stand-ins.
    std::vector<std::string> dirs = {"/usr/local/cuda/lib", "/usr/local/cuda/lib64"};
    for (const auto& root : fs::directory_iterator(CUDOCTOR_ROOTS_DIR))
        for (const char* lib : {"usr/lib/x86_64-linux-gnu", "usr/local/cuda/lib64", "usr/local/cuda/lib"})
            dirs.push_back((root.path() / lib).string());
    const auto host = host::Host::real();
    int scanned = 0;
    for (const auto& dir : dirs) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(dir, ec)) {
            const auto name = entry.path().filename().string();
            if (!name.starts_with("libcudnn") || !entry.is_regular_file(ec)) continue;
            auto file = host::MappedFile::open(host, entry.path().string(), 0);
            if (!file) continue;
            auto elf = formats::parse_elf(file->bytes());
            if (!elf) continue;
            const auto* rodata = formats::find_section(*elf, ".rodata");
            if (!rodata) continue;
            auto bytes = formats::section_bytes(file->bytes(), *rodata);
            if (!bytes) continue;
            const auto reference = reference_library_names(*bytes, kStems);
            EXPECT_EQ(formats::library_names_in(*bytes, kStems), reference) << entry.path();
            // As the probe reads it: pread(2) in 64 KiB pieces, and in pieces that cut names.
            for (const std::size_t piece : {std::size_t{64} << 10, std::size_t{4093}}) {
                auto read = [&](std::uint64_t offset, std::uint64_t length, char* to) {
                    return file->read_at(rodata->offset + offset, length, to);
                };
                if (!file->readable()) break;
                EXPECT_EQ(names_read(bytes->size(), piece, read), reference) << entry.path() << " " << piece;
            }
            ++scanned;
        }
    }
    if (scanned == 0) GTEST_SKIP() << "no cuDNN library with a .rodata here";
}

std::string describe(const Expected<std::string>& e) {
    return e ? "ok " + *e : "error " + std::to_string(int(e.error().code)) + " " + e.error().message;
}
std::string describe(const Expected<host::FileInfo>& e) {
    if (!e) return "error " + std::to_string(int(e.error().code)) + " " + e.error().message;
    return "ok " + std::to_string(int(e->type)) + " " + std::to_string(e->size) + " " + std::to_string(e->executable) + " " +
           std::to_string(e->mtime);
}
std::string describe(const Expected<std::vector<std::string>>& e) {
    if (!e) return "error " + std::to_string(int(e.error().code)) + " " + e.error().message;
    std::string out = "ok";
    for (const auto& n : *e) out += " " + n;
    return out;
}

/// Every answer the Host gives about `path`, as one string.
std::string answers(const host::Host& host, const std::string& path) {
    std::string out = describe(host.resolve(path)) + "\n" + describe(host.resolve_parent(path)) + "\n" + describe(host.stat(path)) + "\n" +
                      describe(host.lstat(path)) + "\n" + describe(host.read_link(path)) + "\n" + describe(host.list_dir(path)) + "\n";
    auto data = host.read_file(path, 1u << 16);
    out += data ? "read " + std::to_string(data->size()) + " " + std::to_string(std::hash<std::string>{}(*data)) : describe(data);
    out += "\n";
    for (const auto& g : host.glob(path, "*.so*")) out += g + " ";
    return out + "\n";
}

TEST(ProbeFastPaths, HostCacheGivesTheSameAnswersOnEveryFixtureMachine) {
    // Each path asked twice inside a cache scope (the second answer comes from the cache) must
    // read as without one: links inside the image, loops, missing parts, files that are folders.
    int paths = 0;
    for (const auto& root : fs::directory_iterator(CUDOCTOR_ROOTS_DIR)) {
        if (!root.is_directory()) continue;
        auto host = host::Host::rooted(root.path().string());
        ASSERT_TRUE(host) << root.path();
        std::vector<std::string> machine_paths = {
            "/", "/missing", "/etc/missing/x", "/etc/os-release/x", "/usr/local/cuda/../lib", "proc/self/.."};
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(root.path(), fs::directory_options::none, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec)) {
            const auto rel = it->path().lexically_relative(root.path()).string();
            machine_paths.push_back("/" + rel);
            if (!it->is_regular_file(ec)) machine_paths.push_back("/" + rel + "/");  // a folder, or a link that may lead to one
        }
        std::vector<std::string> plain;
        for (const auto& p : machine_paths) plain.push_back(answers(*host, p));
        {
            const auto scope = host->cache_scope();
            const auto inner = host->cache_scope();  // a nested guard changes nothing
            for (int pass = 0; pass < 2; ++pass)
                for (std::size_t i = 0; i < machine_paths.size(); ++i)
                    ASSERT_EQ(answers(*host, machine_paths[i]), plain[i]) << machine_paths[i];
        }
        for (std::size_t i = 0; i < machine_paths.size(); i += 7) ASSERT_EQ(answers(*host, machine_paths[i]), plain[i]) << machine_paths[i];
        paths += static_cast<int>(machine_paths.size());
    }
    EXPECT_GT(paths, 1000);
}

TEST(ProbeFastPaths, HostCacheEndsWithItsScope) {
    const auto dir = fs::temp_directory_path() / ("cudoctor-cache-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "usr");
    auto host = host::Host::rooted(dir.string());
    ASSERT_TRUE(host);
    {
        const auto scope = host->cache_scope();
        EXPECT_EQ(describe(host->list_dir("/usr")), "ok");
        std::ofstream(dir / "usr" / "new").put('x');
        EXPECT_EQ(describe(host->list_dir("/usr")), "ok");  // remembered inside the scope
    }
    EXPECT_EQ(describe(host->list_dir("/usr")), "ok new");  // asked again after it
    fs::remove_all(dir);
}

TEST(ProbeFastPaths, ListingsAreInByteOrderAndGlobIsFnmatch) {
    const auto dir = fs::temp_directory_path() / ("cudoctor-glob-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "d");
    const std::vector<std::string> names = {"a",
                                            "ab",
                                            "abcdefgh",
                                            "abcdefghi",
                                            "abcdefgg",
                                            "abcdefg",
                                            "B",
                                            "\xc3\xa9t\xc3\xa9",
                                            "\x7f",
                                            "gcc-12",
                                            "x86_64-linux-gnu-gcc-12",
                                            "gcc",
                                            "libcuda.so.1",
                                            "libcudart.so.12",
                                            "a*b",
                                            "a?b",
                                            "a[b",
                                            "a\\b",
                                            ".hidden",
                                            "[x]",
                                            "libcuda.so",
                                            "cuda-12.4",
                                            "cuda-"};
    for (const auto& n : names) std::ofstream(dir / "d" / n).put('x');
    auto host = host::Host::rooted(dir.string());
    ASSERT_TRUE(host);
    auto sorted = names;
    std::sort(sorted.begin(), sorted.end());
    for (int cached = 0; cached < 2; ++cached) {
        std::optional<host::Host::CacheScope> scope;
        if (cached) scope.emplace(*host);
        EXPECT_EQ(host->list_dir("/d").value_or(std::vector<std::string>{}), sorted);
        for (const char* pattern :
             {"*gcc-[0-9]*", "cuda-*", "*",   "a*",    "*b",    "a?b",      "a[*]b", "a\\*b", "a\\?b", "[!a]*", "*.so*",
              "libcuda.so*", "a[b",    "[x]", "\\[x]", "*-*-*", "abcdefg?", "?",     "",      "cuda-", "*[",    "[]x]*"}) {
            std::vector<std::string> expected;
            for (const auto& n : sorted)
                if (::fnmatch(pattern, n.c_str(), 0) == 0) expected.push_back("/d/" + n);
            EXPECT_EQ(host->glob("/d", pattern), expected) << pattern << (cached ? " (cached)" : "");
        }
    }
    fs::remove_all(dir);
}

TEST(ProbeFastPaths, LargeReadsGiveWhatReadGivesWithTheSameNotes) {
    const auto dir = fs::temp_directory_path() / ("cudoctor-large-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "var/log/apt");
    std::ofstream(dir / "var/log/dpkg.log") << "2024-06-12 06:41:26 install nvidia-driver-550:amd64 <none> 550.54.14-1\n";
    std::ofstream(dir / "var/log/empty.log").flush();
    fs::create_directories(dir / "var/log/folder.log");
    fs::create_symlink("loop.log", dir / "var/log/loop.log");
    std::vector<std::string> roots = {dir.string()};
    for (const auto& root : fs::directory_iterator(CUDOCTOR_ROOTS_DIR))
        if (root.is_directory()) roots.push_back(root.path().string());
    const auto& knowledge = kb::Kb::builtin();
    const probe::Options options;
    for (const auto& root : roots) {
        auto host = host::Host::rooted(root);
        ASSERT_TRUE(host) << root;
        for (const char* file : {"/var/lib/dpkg/status", "/var/log/dpkg.log", "/var/log/apt/history.log", "/var/log/empty.log",
                                 "/var/log/folder.log", "/var/log/loop.log", "/var/log/missing.log"}) {
            for (std::size_t cap : {std::size_t{64} << 20, std::size_t{10}}) {
                snapshot::Snapshot plain_snap, large_snap;
                probe::Context plain(*host, knowledge, options, plain_snap), large(*host, knowledge, options, large_snap);
                const auto read = plain.read("test", file, cap);
                const auto mapped = large.read_large("test", file, cap);
                ASSERT_EQ(mapped.has_value(), read.has_value()) << root << file;
                if (read) {
                    EXPECT_EQ(mapped->view(), *read) << root << file;
                }
                EXPECT_EQ(large_snap.notes, plain_snap.notes) << root << file;
            }
        }
    }
    fs::remove_all(dir);
}

TEST(ProbeFastPaths, ReadFileReadsToTheEndAndKeepsItsCap) {
    const auto dir = fs::temp_directory_path() / ("cudoctor-read-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto host = host::Host::rooted(dir.string());
    ASSERT_TRUE(host);
    for (std::size_t size : {0u, 1u, 4095u, 4096u, 4097u, 100000u}) {
        std::string bytes(size, 'a');
        for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>('a' + i % 26);
        std::ofstream(dir / "f", std::ios::binary | std::ios::trunc) << bytes;
        EXPECT_EQ(host->read_file("/f", size).value_or("?"), bytes) << size;  // exactly the cap
        if (size > 0) {
            auto over = host->read_file("/f", size - 1);
            ASSERT_FALSE(over) << size;
            EXPECT_EQ(over.error().message, "/f: larger than " + std::to_string(size - 1) + " bytes");
        }
        EXPECT_EQ(host->read_file("/f").value_or("?"), bytes);
    }
    fs::remove_all(dir);
    // /proc says st_size 0 and holds more: read to the end all the same.
    const auto real = host::Host::real();
    auto maps = real.read_file("/proc/self/maps");
    ASSERT_TRUE(maps);
    EXPECT_GT(maps->size(), 4096u);
    EXPECT_TRUE(maps->ends_with("\n"));
}

}  // namespace
