// The error catalog against the real error outputs of tests/fixtures/errors/: every cause has at
// least ten real reports, explain's first cause is each one's own (the part the catalog is written
// from, one by one; the held-back third only as a score, see bench/explain_generalisation.py), the
// ordinary logs stay silent, and the literal prefilter never hides a match.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <openssl/sha.h>
#include <re2/re2.h>

#include "common/text.hpp"
#include "explain/causes.hpp"
#include "explain/explain.hpp"

namespace fs = std::filesystem;
using namespace cudoctor::explain;

namespace {

const fs::path kErrors = fs::path(CUDOCTOR_SOURCE_DIR) / "tests/fixtures/errors";

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Reader fresh_reader() {
    auto rows = load_catalog(std::nullopt);
    EXPECT_TRUE(rows) << rows.error().message;
    auto reader = Reader::create(std::move(*rows));
    EXPECT_TRUE(reader) << reader.error().message;
    return std::move(*reader);
}

std::vector<Cause> explain_with(Reader& reader, std::string_view text) {
    reader.reset();
    reader.feed(text);
    reader.finish();
    return reader.causes();
}

/// One compiled catalog for every log, reset between them (compiling it for each of the ~670
/// logs was most of this file's time): CatalogReaderReset checks a reset reader answers as a
/// fresh one does.
std::vector<Cause> explain_text(std::string_view text) {
    static Reader reader = fresh_reader();
    return explain_with(reader, text);
}

std::vector<std::string> ids(const std::vector<Cause>& causes) {
    std::vector<std::string> out;
    out.reserve(causes.size());
    for (const auto& c : causes) out.push_back(c.id);
    return out;
}

}  // namespace

TEST(ExplainCatalog, EmbeddedCatalogLoadsAndNamesOnlyKnownCauses) {
    auto rows = load_catalog(std::nullopt);
    ASSERT_TRUE(rows) << rows.error().message;
    EXPECT_GT(rows->size(), 60u);
    std::set<std::string> causes;
    for (const auto& r : *rows) causes.insert(r.cause);
    // Every cause the issue names can be reached from some message.
    for (const auto& c : all_causes()) EXPECT_TRUE(causes.count(std::string(c.id))) << c.id;
}

TEST(ExplainCatalog, MalformedCatalogsAreRefusedWithFileAndLine) {
    const std::string head = "# source: test\npattern\tcause\tconfidence\tliteral\tregex\tcaptures\n";
    auto unknown = parse_catalog("c.tsv", head + "p\tno-such-cause\thigh\tabc\tabc\t\n");
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("c.tsv:3"), std::string::npos) << unknown.error().message;
    EXPECT_NE(unknown.error().message.find("unknown cause"), std::string::npos);
    auto groups = parse_catalog("c.tsv", head + "p\twsl\thigh\tabc\t(a)(b)c\tonly_one\n");
    ASSERT_FALSE(groups);
    EXPECT_NE(groups.error().message.find("captures"), std::string::npos);
    EXPECT_FALSE(parse_catalog("c.tsv", head + "p\twsl\tsure\tabc\tabc\t\n"));
    EXPECT_FALSE(parse_catalog("c.tsv", head + "p\twsl\thigh\tabc\t(abc\t\n"));
    EXPECT_FALSE(parse_catalog("c.tsv", head + "p\twsl\thigh\tabc\tabc\t\np\twsl\thigh\tabc\tabc\t\n"));
}

TEST(ExplainCatalog, OverrideDirectoryReplacesTheCatalog) {
    const auto dir = fs::temp_directory_path() / ("cudoctor-catalog-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "error_catalog.tsv") << "# source: a test override\npattern\tcause\tconfidence\tliteral\tregex\tcaptures\n"
                                             << "only\twsl\thigh\tmagic words\tmagic words\t\n";
    auto rows = load_catalog(dir.string());
    fs::remove_all(dir);
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ(rows->front().pattern, "only");
    EXPECT_FALSE(load_catalog("/nonexistent/kb"));
}

/// The logs the catalog was first written from: read, so never held back.
std::set<std::string> read_before_split() {
    std::set<std::string> out;
    std::istringstream in(read(kErrors / "read-before-split.txt"));
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') out.insert(line);
    return out;
}

/// The split, fixed once: a log is held back when the first byte of SHA-256(file name) is 0 mod 3
/// and it was not read before the split (bench/explain_generalisation.py says the same).
bool held_back(const fs::path& log, const std::set<std::string>& read_before) {
    const std::string name = log.filename().string();
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(name.data()), name.size(), digest);
    return digest[0] % 3 == 0 && !read_before.contains(log.parent_path().filename().string() + "/" + name);
}

/// Logs of the written-from part whose first cause is not their own, each with why: the log alone
/// does not show the cause (the thread does), or it shows two. A log that becomes right must leave
/// this list, and no other may join it.
const std::map<std::string, std::string> kKnownMisses = {
    {"driver-not-loaded/gorgonia-cu-2.log", "only 'panic: Unknown': the missing nvidia_uvm module is the reporter's finding"},
    {"missing-cudart/bitsandbytes-385.log",
     "the paste ends at bitsandbytes' first search warning (libcudart.so not in the environment's paths), before its verdict"},
    {"missing-other-lib/pytorch-162367.log", "the paste ends before the OSError line"},
    {"nvcc-not-found/alan-cluster-58.log", "nvcc and nvidia-smi both not found: two causes, and nvidia-smi's ranks first"},
    {"runfile-installer-refused/microsoft-pai-784.log", "a shell trace with no error: the thread says the driver was in use"},
    {"sudo-path-lost/caffe-3685.log", "sudo runs python with the user's LD_LIBRARY_PATH set, but the paste ends before the error"},
    {"sudo-path-lost/cudamat-40.log", "no sudo in the log, and nvcc's 'Path to libdevice library not specified' names none of the causes"},
    {"sudo-path-lost/neon-117.log", "no sudo in the log: the cubins skipped without nvcc are the reporter's analysis"},
    {"torch-cuda-unavailable/pytorch-43493.log", "a pip install that succeeds: no error in the log"},
    {"torch-cuda-unavailable/tensorflow-60269.log", "only a device list without a GPU"},
    {"wsl/textgen-458.log", "the paste ends before the error; WSL 1 is the reporter's statement"},
};

TEST(ExplainCatalog, EveryCauseHasTenRealReportsAndTheFirstCauseIsTheirOwn) {
    const auto read_before = read_before_split();
    std::map<std::string, int> per_cause;
    int held = 0, held_right = 0, written = 0;
    std::set<std::string> misses;
    for (const auto& dir : fs::directory_iterator(kErrors)) {
        if (!dir.is_directory()) continue;
        const std::string cause = dir.path().filename().string();
        ASSERT_TRUE(cause == "none" || find_cause(cause) != nullptr) << "fixture folder of an unknown cause: " << cause;
        for (const auto& f : fs::directory_iterator(dir)) {
            const std::string name = cause + "/" + f.path().filename().string();
            SCOPED_TRACE(name);
            const auto text = read(f.path());
            // A public report's address; a near miss may instead be made on this machine, saying how.
            ASSERT_TRUE(cudoctor::text::starts_with(text, "# source: https://") ||
                        (cause == "none" && cudoctor::text::starts_with(text, "# source: made on this machine: ")))
                << "name the public report it comes from";
            const auto found = ids(explain_text(text));
            const std::string first = found.empty() ? "none" : found.front();
            ++per_cause[cause];
            if (held_back(f.path(), read_before)) {
                // Scored, never shown: a held-back log that is read stops being held back.
                ++held;
                held_right += first == cause;
                continue;
            }
            ++written;
            if (first != cause) misses.insert(name);
            if (kKnownMisses.contains(name)) EXPECT_NE(first, cause) << "now right: take it off kKnownMisses";
            else EXPECT_EQ(first, cause);
        }
    }
    for (const auto& [name, why] : kKnownMisses) EXPECT_TRUE(misses.contains(name)) << name << " is no longer a fixture or a miss";
    for (const auto& c : all_causes()) EXPECT_GE(per_cause[std::string(c.id)], 10) << c.id;
    EXPECT_GE(per_cause["none"], 10);
    EXPECT_GE(written + held, 300);
    // The held-back third: its score may only rise. The third of 2026-12-02 (71 of 105 at the
    // end) was read and retired into the written part on 2026-12-03; this is the third of the
    // logs added after that, scored once by the lead. Raise the floor with it; a drop means a
    // change that does not generalise.
    // Floor from the one score of the new held-back third: 75 of 83 (90.4 %), 2026-12-03, before
    // any of its misses was read.
    EXPECT_GE(held_right, 75) << "held back: " << held_right << " of " << held << " right";
}

TEST(ExplainCatalog, OrdinaryLogsStaySilent) {
    // The held-back ones are scored above and never shown: a failure here would show one.
    const auto read_before = read_before_split();
    int files = 0;
    for (const auto& f : fs::directory_iterator(kErrors / "none")) {
        if (held_back(f.path(), read_before)) continue;
        SCOPED_TRACE(f.path().string());
        EXPECT_TRUE(ids(explain_text(read(f.path()))).empty());
        ++files;
    }
    EXPECT_GE(files, 5);
    // Near misses written by hand: CUDA words, "error", library names that load fine.
    EXPECT_TRUE(ids(explain_text("cudaErrorInsufficientDriver = 35,\n"
                                 "    CUDA_ERROR_OUT_OF_MEMORY                  = 2,\n"
                                 "libcudnn.so.9 => /usr/lib/x86_64-linux-gnu/libcudnn.so.9 (0x00007f)\n"
                                 "0 errors, 0 warnings; cuda tests passed\n"
                                 "UserWarning: The detected CUDA version (12.2) has a minor version mismatch with the version "
                                 "that was used to compile PyTorch (12.1). Most likely this shouldn't be a problem.\n"))
                    .empty());
}

TEST(ExplainCatalog, CatalogReaderResetAnswersAsAFreshOne) {
    // The shared reader of explain_text, reset between logs, against a reader made for each log,
    // over one log of every cause folder (and a reset in the middle of a log).
    Reader shared = fresh_reader();
    shared.feed("RuntimeError: CUDA error: no kernel image is available for execution on the device\n");
    int compared = 0;
    for (const auto& dir : fs::directory_iterator(kErrors)) {
        if (!dir.is_directory()) continue;
        for (const auto& f : fs::directory_iterator(dir)) {
            SCOPED_TRACE(f.path().string());
            const auto text = read(f.path());
            Reader fresh = fresh_reader();
            const auto want = explain_with(fresh, text), got = explain_with(shared, text);
            EXPECT_EQ(ids(got), ids(want));
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                EXPECT_EQ(got[i].match_count, want[i].match_count);
                EXPECT_EQ(got[i].values, want[i].values);
                EXPECT_EQ(got[i].consequence_of, want[i].consequence_of);
                ASSERT_EQ(got[i].matched_lines.size(), want[i].matched_lines.size());
                for (std::size_t j = 0; j < got[i].matched_lines.size(); ++j)
                    EXPECT_EQ(got[i].matched_lines[j].line, want[i].matched_lines[j].line);
            }
            EXPECT_EQ(shared.lines(), fresh.lines());
            ++compared;
            break;
        }
    }
    EXPECT_GE(compared, 20);
}

TEST(ExplainCatalog, PrefilterLiteralIsInEveryMatchOfTheFixtures) {
    auto rows = load_catalog(std::nullopt);
    ASSERT_TRUE(rows);
    RE2::Options o;
    o.set_encoding(RE2::Options::EncodingLatin1);
    std::vector<std::unique_ptr<RE2>> regexes;  // each row compiled once, not once per line
    for (const auto& r : *rows) {
        regexes.push_back(std::make_unique<RE2>(r.regex, o));
        ASSERT_TRUE(regexes.back()->ok()) << r.pattern;
    }
    for (const auto& dir : fs::recursive_directory_iterator(kErrors)) {
        if (!dir.is_regular_file()) continue;
        const auto text = read(dir.path());
        const auto lines = cudoctor::text::lines(text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const std::string window = std::string(lines[i]) + (i + 1 < lines.size() ? "\n" + std::string(lines[i + 1]) : "");
            for (std::size_t k = 0; k < rows->size(); ++k) {
                const auto& r = (*rows)[k];
                re2::StringPiece m;
                if (regexes[k]->Match(window, 0, window.size(), RE2::UNANCHORED, &m, 1)) {
                    EXPECT_NE(std::string(m.data(), m.size()).find(r.literal), std::string::npos)
                        << r.pattern << " matched without its literal in " << dir.path();
                }
            }
        }
    }
}

TEST(ExplainCatalog, RootCauseComesFirstAndConsequencesPointToIt) {
    // A cascade as a pytest log shows it: no driver → CUDA unavailable → a failed assertion.
    const auto causes = explain_text(
        "tests/test_gpu.py::test_matmul FAILED\n"
        "E   RuntimeError: No CUDA GPUs are available\n"
        "E   UserWarning: CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
        "and installed a driver\n");
    ASSERT_EQ(ids(causes), (std::vector<std::string>{"driver-not-loaded", "torch-cuda-unavailable"}));
    EXPECT_EQ(causes[0].consequence_of, "");
    EXPECT_EQ(causes[1].consequence_of, "driver-not-loaded");
    // The generic "asynchronously reported" hint follows the specific error it accompanies.
    const auto nki = explain_text(
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "CUDA kernel errors might be asynchronously reported at some other API call\n");
    ASSERT_EQ(ids(nki), (std::vector<std::string>{"no-kernel-image", "async-error"}));
    EXPECT_EQ(nki[1].consequence_of, "no-kernel-image");
}

TEST(ExplainCatalog, ValuesAreReadOutOfTheMessages) {
    auto c = explain_text(
        "The NVIDIA driver on your system is too old (found version 11040).\n"
        "host_config.h:139:2: error: #error -- unsupported GNU version! gcc versions later than 12 are not supported!\n"
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n"
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n");
    std::map<std::string, Cause> by_id;
    for (auto& x : c) by_id[x.id] = x;
    EXPECT_EQ(by_id["driver-too-old"].value("driver_cuda_code"), "11040");
    EXPECT_EQ(by_id["gcc-too-new-for-toolkit"].value("gcc_max"), "12");
    EXPECT_EQ(by_id["no-kernel-image"].value("sm"), "sm_120");
    EXPECT_EQ(by_id["missing-cudart"].value("soname"), "libcudart.so.11.0");
    // A low-confidence row alone makes no cause.
    EXPECT_TRUE(explain_text("NVML library version: 550.144\n").empty());
}
