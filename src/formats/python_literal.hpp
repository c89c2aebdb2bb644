#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

/// Just enough of Python's syntax to read the generated version files of Python packages
/// without running Python: string literals and top-level assignments.
namespace cudoctor::formats::detail {

/// The Python string literal at the start of `s` ('x', "x", '''x''', """x""", with an optional
/// r/u/b prefix), its common escapes decoded (\\ \' \" \n \t \r; others are kept as written).
/// Sets `consumed` to the literal's length. nullopt when `s` does not start with a complete one,
/// or with a triple-quoted one when `allow_triple` is false (so a caller that reads at many
/// places never scans to the end of the file from each).
std::optional<std::string> read_python_string(std::string_view s, std::size_t& consumed, bool allow_triple = true);

/// The right-hand side (to the end of its line) of the first top-level `NAME = ...` or
/// `NAME: T = ...` line at or after offset `from`; `next` is set to where to search on.
/// nullopt when there is none.
std::optional<std::string_view> find_top_level_assignment(std::string_view text, std::string_view name, std::size_t from, std::size_t& next);

/// True for Python's identifier characters (ASCII only: version files use nothing else).
bool is_python_ident_char(char c);

}  // namespace cudoctor::formats::detail
