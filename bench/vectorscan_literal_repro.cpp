// Vectorscan 5.4.9 (Debian libvectorscan5) misses a literal match depending on where the buffer
// lies in memory: five literals (a set small enough for its Teddy matcher), a 164-byte buffer that
// holds "CUDA out of memory" at 129..147, scanned at each of 4096 start offsets within a page. On
// the bench machine (AVX-512) about a third of the offsets report nothing. Found by fuzzing
// formats::LogScanner against the RE2 engine (fuzz/log_scan_fuzz.cpp); the reason the Vectorscan
// engine is opt-in (CUDOCTOR_LOG_ENGINE=vectorscan). Exit 1 while the library misses.
//
//   g++ -O1 bench/vectorscan_literal_repro.cpp -o /tmp/repro $(pkg-config --cflags --libs libhs) && /tmp/repro
#include <hs/hs.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main() {
    const std::string text(
        "\x76\x6f\x63\x61\x62\x75\x6c\x61\x72\x79\x2e\x74\x78\x74\x3a\x20\x31\x31\x35\x25\x7c\x85\x85\x85\x85\x85\x85\x85\x85\x85"
        "\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85"
        "\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85"
        "\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85\x85"
        "\x85\x85\x85\x85\xe2\x96\x78\x00\x0a\x43\x55\x44\x41\x20\x6f\x75\x74\x20\x6f\x66\x20\x6d\x65\x6d\x6f\x72\x79\x2e\x41\x72"
        "\x69\x65\x64\x20\x88\xe2\x96\x0d\x61\x30\xe8\x0a\x88\xe2",
        164);
    const std::vector<std::string> literals = {"CUDA out of memory", "cannot open shared object", "driver on your system is too old",
                                               "mismatches the version that was used to compile", "nsupported GNU version"};
    std::vector<const char*> expressions;
    std::vector<std::size_t> lengths;
    std::vector<unsigned> flags, ids;
    for (std::size_t i = 0; i < literals.size(); ++i) {
        expressions.push_back(literals[i].data());
        lengths.push_back(literals[i].size());
        flags.push_back(0);
        ids.push_back(static_cast<unsigned>(i));
    }
    hs_database_t* db = nullptr;
    hs_compile_error_t* error = nullptr;
    if (hs_compile_lit_multi(expressions.data(), flags.data(), ids.data(), lengths.data(), static_cast<unsigned>(expressions.size()),
                             HS_MODE_BLOCK, nullptr, &db, &error) != HS_SUCCESS) {
        std::fprintf(stderr, "compile: %s\n", error->message);
        return 2;
    }
    hs_scratch_t* scratch = nullptr;
    if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) return 2;
    char* page = static_cast<char*>(std::aligned_alloc(4096, 3 * 4096));
    std::memset(page, 'z', 3 * 4096);
    int missed = 0;
    for (std::size_t start = 0; start < 4096; ++start) {
        char* buf = page + 4096 + start;
        std::memcpy(buf, text.data(), text.size());
        int found = 0;
        hs_scan(
            db, buf, static_cast<unsigned>(text.size()), 0, scratch,
            [](unsigned id, unsigned long long, unsigned long long, unsigned, void* c) -> int {
                if (id == 0) ++*static_cast<int*>(c);
                return 0;
            },
            &found);
        if (found == 0) ++missed;
        std::memset(buf, 'z', text.size());
    }
    std::printf("vectorscan %s: \"CUDA out of memory\" missed at %d of 4096 buffer offsets\n", hs_version(), missed);
    std::free(page);
    hs_free_scratch(scratch);
    hs_free_database(db);
    return missed ? 1 : 0;
}
