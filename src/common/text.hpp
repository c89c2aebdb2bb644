#pragma once
#include <string>
#include <string_view>
#include <vector>

/// Small string helpers shared by every room. Pure functions, no I/O.
namespace cudoctor::text {

std::string_view trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);
bool contains(std::string_view s, std::string_view needle);
/// Splits on `sep`, keeping empty fields ("a::b" → {"a", "", "b"}).
std::vector<std::string_view> split(std::string_view s, char sep);
/// Splits into lines (LF or CRLF); a trailing newline adds no empty line.
std::vector<std::string_view> lines(std::string_view s);
std::string to_lower(std::string_view s);
/// ASCII '0'..'9' (std::isdigit without the locale).
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
/// A space or a TAB: what separates fields within one line.
constexpr bool is_blank(char c) { return c == ' ' || c == '\t'; }
/// The fields of one line as awk splits them: runs of spaces and TABs separate, none is empty.
std::vector<std::string_view> fields(std::string_view s);
/// Printable form of arbitrary bytes for an error line: control bytes become '?', cut at `max`.
std::string printable(std::string_view s, std::size_t max = 120);
/// One word for a POSIX shell: returned as is when it holds nothing the shell would expand or
/// split, otherwise in single quotes (an inner ' becomes '\\'').
std::string shell_quote(std::string_view word);

}  // namespace cudoctor::text
