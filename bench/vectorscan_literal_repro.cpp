// Vectorscan 5.4.9 (Debian libvectorscan5) misses a literal match that ends a few bytes before the
// end of the buffer it scans, depending on where that end lies in memory; the log engine scans
// every block with padding after it (src/formats/vectorscan_padding.hpp). This program shows both:
// each case is scanned as it is ("raw") and as the engine scans it ("padded": kScanPadding bytes
// of kPaddingByte after the data), and a match counts as found only if Vectorscan reports that
// literal ending exactly where it was planted.
//
//   1. The case the fuzzer found (fuzz/log_scan_fuzz.cpp): five literals, a 164-byte buffer that
//      holds "CUDA out of memory" at 129..147, at each of the 4096 offsets within a page.
//   2. Sweeps: literal sets made of the first k literals of a catalog (k = 1 to all of them, as
//      the engine builds its literal database: each literal once, single bytes left out; k = 1
//      to 31, then every 8th, and all) and 200 random sets of 2 to 16 literals. In each set,
//      literals are planted (every one for sets of up to 20, 16 spread over a larger one, 3 of
//      a random set) with 0 to 200 bytes before them and 0 to 160 after, at each of the 64 start
//      alignments (with the lengths: every end alignment at every distance), in two fillers: one
//      byte repeated (the matchers' flood paths) and log text full of near-misses (their
//      confirm paths).
//
// Exit 0 when the padded scans miss nothing, 1 otherwise; the raw misses are printed (they are
// the library's bug, not an error here).
//
//   g++ -O2 -std=c++20 -Isrc bench/vectorscan_literal_repro.cpp -o /tmp/repro $(pkg-config --cflags --libs libhs)
//   /tmp/repro data/error_catalog.tsv [MORE_CATALOG.tsv ...]
#include <hs/hs.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "formats/vectorscan_padding.hpp"

namespace {

using cudoctor::formats::detail::kPaddingByte;
using cudoctor::formats::detail::kScanPadding;

struct Database {
    hs_database_t* db = nullptr;
    hs_scratch_t* scratch = nullptr;
    explicit Database(const std::vector<std::string>& literals) {
        std::vector<const char*> expressions;
        std::vector<std::size_t> lengths;
        std::vector<unsigned> flags, ids;
        for (std::size_t i = 0; i < literals.size(); ++i) {
            expressions.push_back(literals[i].data());
            lengths.push_back(literals[i].size());
            flags.push_back(0);
            ids.push_back(static_cast<unsigned>(i));
        }
        hs_compile_error_t* error = nullptr;
        if (hs_compile_lit_multi(expressions.data(), flags.data(), ids.data(), lengths.data(), static_cast<unsigned>(expressions.size()),
                                 HS_MODE_BLOCK, nullptr, &db, &error) != HS_SUCCESS) {
            std::fprintf(stderr, "compile: %s\n", error->message);
            std::exit(2);
        }
        if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) std::exit(2);
    }
    ~Database() {
        hs_free_scratch(scratch);
        hs_free_database(db);
    }
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    /// Whether literal `id` is reported ending at `end` in buf[0, size).
    bool finds(const char* buf, std::size_t size, unsigned id, std::size_t end) const {
        struct Want {
            unsigned id;
            unsigned long long end;
            bool found;
        } want{id, end, false};
        hs_scan(
            db, buf, static_cast<unsigned>(size), 0, scratch,
            [](unsigned i, unsigned long long, unsigned long long to, unsigned, void* c) -> int {
                auto& w = *static_cast<Want*>(c);
                w.found = w.found || (i == w.id && to == w.end);
                return 0;
            },
            &want);
        return want.found;
    }
};

/// A page-aligned arena: the buffer is placed at a chosen offset, with the bytes around it set.
struct Arena {
    static constexpr std::size_t kSize = 16 * 4096;
    char* page = static_cast<char*>(std::aligned_alloc(4096, kSize));
    ~Arena() { std::free(page); }
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
};

struct Tally {
    long cases = 0, raw_missed = 0, padded_missed = 0;
    int raw_nearest = 1 << 30, raw_furthest = -1;  // bytes from the literal's end to the data's end, over raw misses
    void add(const Tally& t) {
        cases += t.cases, raw_missed += t.raw_missed, padded_missed += t.padded_missed;
        raw_nearest = std::min(raw_nearest, t.raw_nearest), raw_furthest = std::max(raw_furthest, t.raw_furthest);
    }
    void print(const char* what) const {
        std::printf("%-44s %10ld cases: raw %7ld missed", what, cases, raw_missed);
        if (raw_missed) std::printf(" (literal end %d..%d bytes before the data end)", raw_nearest, raw_furthest);
        std::printf(", padded %ld missed\n", padded_missed);
    }
};

/// Scans data (already at buf) raw and padded; counts the misses of literal id ending at `end`.
void check(const Database& d, char* buf, std::size_t size, unsigned id, std::size_t end, Tally& t) {
    ++t.cases;
    // Raw: what comes after the data in memory is not padding (and not part of the scan).
    buf[size] = 'z';
    if (!d.finds(buf, size, id, end)) {
        ++t.raw_missed;
        const int distance = static_cast<int>(size - end);
        t.raw_nearest = std::min(t.raw_nearest, distance), t.raw_furthest = std::max(t.raw_furthest, distance);
    }
    std::memset(buf + size, kPaddingByte, kScanPadding);
    if (!d.finds(buf, size + kScanPadding, id, end)) ++t.padded_missed;
}

Tally the_fuzzers_case(Arena& arena) {
    const std::string text(
        "\x76\x6f\x63\x61\x62\x75\x6c\x61\x72\x79\x2e\x74\x78\x74\x3a\x20\x31\x31\x35\x25\x7c\x85\x85\x85\x85\x85\x85\x85\x85\x85"
        "\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85"
        "\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85"
        "\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85"
        "\x85\x85\x85\x85\xe2\x96\x78\x00\x0a\x43\x55\x44\x41\x20\x6f\x75\x74\x20\x6f\x66\x20\x6d\x65\x6d\x6f\x72\x79\x2e\x41\x72"
        "\x69\x65\x64\x20\x88\xe2\x96\x0d\x61\x30\xe8\x0a\x88\xe2",
        164);
    const Database d({"CUDA out of memory", "cannot open shared object", "driver on your system is too old",
                      "mismatches the version that was used to compile", "nsupported GNU version"});
    Tally t;
    for (std::size_t start = 0; start < 4096; ++start) {
        std::memset(arena.page, 'z', Arena::kSize);
        char* buf = arena.page + 4096 + start;
        std::memcpy(buf, text.data(), text.size());
        check(d, buf, text.size(), 0, 147, t);
    }
    return t;
}

/// Every literal of the set (or `most` of a large one, spread over it) at every geometry of the sweep.
Tally sweep(const std::vector<std::string>& literals, Arena& arena, std::size_t most = 16) {
    static const std::string kLogText =
        "error: CUDA driver version  is insu; cannot open shared obj driver on your sys nvcc fatal : Unsupported gpu "
        "architecture 'compute_' RuntimeError: CUDA error: out of mem libcudnn.so.9: cannot ope ImportError: lib ";
    const Database d(literals);
    Tally t;
    const std::size_t step = literals.size() <= std::max<std::size_t>(most, 20) ? 1 : literals.size() / most;
    std::string fill[2];
    for (std::size_t i = 0; i < 512; ++i) fill[0] += 'z', fill[1] += kLogText[i % kLogText.size()];
    for (std::size_t li = 0; li < literals.size(); li += step) {
        const std::string& literal = literals[li];
        for (const int filler : {0, 1}) {
            for (const std::size_t before : {0, 1, 3, 7, 31, 64, 65, 200}) {
                for (std::size_t after = 0; after <= 160; ++after) {
                    const std::size_t size = before + literal.size() + after;
                    for (std::size_t align = 0; align < 64; ++align) {
                        char* buf = arena.page + 4096 + align;
                        std::memcpy(buf, fill[filler].data(), size);
                        std::memcpy(buf + before, literal.data(), literal.size());
                        check(d, buf, size, static_cast<unsigned>(li), before + literal.size(), t);
                    }
                }
            }
        }
    }
    return t;
}

/// The literal column of a catalog, as the engine puts it in its database: each literal once,
/// in the catalog's order, single bytes left out (those are found with memchr).
std::vector<std::string> catalog_literals(const char* path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path);
        std::exit(2);
    }
    std::vector<std::string> out;
    std::set<std::string> seen;
    std::string line;
    bool header = false;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        if (!header) {
            header = true;
            continue;
        }
        std::vector<std::string> fields;
        std::stringstream ss(line);
        for (std::string f; std::getline(ss, f, '\t');) fields.push_back(f);
        if (fields.size() > 3 && fields[3].size() > 1 && seen.insert(fields[3]).second) out.push_back(fields[3]);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s CATALOG.tsv [MORE_CATALOG.tsv ...]\n", argv[0]);
        return 2;
    }
    std::printf("vectorscan %s, padding %zu bytes of 0x%02x\n", hs_version(), kScanPadding, static_cast<unsigned char>(kPaddingByte));
    Arena arena;
    Tally all;
    const Tally fuzzers = the_fuzzers_case(arena);
    fuzzers.print("the fuzzer's case, 4096 offsets");
    all.add(fuzzers);
    std::vector<std::string> every;
    for (int c = 1; c < argc; ++c) {
        const auto literals = catalog_literals(argv[c]);
        std::vector<std::size_t> sizes;
        for (std::size_t k = 1; k <= literals.size(); k += k < 32 ? 1 : 8) sizes.push_back(k);
        if (sizes.back() != literals.size()) sizes.push_back(literals.size());
        Tally catalog;
        for (const auto k : sizes) {
            const Tally t = sweep(std::vector<std::string>(literals.begin(), literals.begin() + static_cast<std::ptrdiff_t>(k)), arena);
            if (t.raw_missed || t.padded_missed || k <= 12) t.print(("  " + std::string(argv[c]) + ": first " + std::to_string(k)).c_str());
            catalog.add(t);
        }
        catalog.print((std::string(argv[c]) + ": 1.." + std::to_string(literals.size()) + " literals").c_str());
        all.add(catalog);
        every.insert(every.end(), literals.begin(), literals.end());
    }
    std::sort(every.begin(), every.end());
    every.erase(std::unique(every.begin(), every.end()), every.end());
    std::mt19937 random(25);
    Tally sets;
    for (int round = 0; round < 200; ++round) {
        std::vector<std::string> literals = every;
        std::shuffle(literals.begin(), literals.end(), random);
        literals.resize(std::min<std::size_t>(literals.size(), 2 + random() % 15));
        sets.add(sweep(literals, arena, 3));
    }
    sets.print("200 random sets of 2..16 literals");
    all.add(sets);
    all.print("all");
    return all.padded_missed == 0 ? 0 : 1;
}
