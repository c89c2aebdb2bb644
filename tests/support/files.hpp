#pragma once
// Reading test inputs: whole files, the fuzz corpora in the source tree, little-endian patches of
// binary samples. One copy for every test file, so the suite also builds as one unity unit.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace cudoctor::test {

/// The whole file as bytes; "" when it cannot be opened (the assertion that follows says what
/// was expected).
inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The whole file, or nullopt when it cannot be opened: for real files that this machine may lack.
inline std::optional<std::string> read_if_present(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// fuzz/corpus/<parser>/<name> in the source tree.
inline std::filesystem::path corpus_path(std::string_view parser, std::string_view name) {
    return std::filesystem::path(CUDOCTOR_SOURCE_DIR) / "fuzz/corpus" / parser / name;
}

/// The bytes of fuzz/corpus/<parser>/<name>; "" when it is missing.
inline std::string corpus(std::string_view parser, std::string_view name) { return slurp(corpus_path(parser, name)); }

/// Stores `v` at byte `at` of `s` in the machine's byte order (little-endian here, as ELF and
/// fatbin samples are); `s` must already be long enough.
template <class T>
void put(std::string& s, std::size_t at, T v) {
    std::memcpy(s.data() + at, &v, sizeof v);
}

}  // namespace cudoctor::test
