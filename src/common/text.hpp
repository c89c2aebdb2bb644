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
/// Length of the well-formed UTF-8 character at s[i], or 0 for an invalid byte (a stray
/// continuation, a cut sequence, an overlong form, a surrogate, past U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i);
/// A well-formed character no terminal should get from outside: a C1 control U+0080–U+009F
/// (U+009B is a one-byte CSI on some terminals), or a bidi override or isolate U+202A–U+202E,
/// U+2066–U+2069, which reorders what the screen shows ("Trojan Source").
bool terminal_refuses(std::string_view character);
/// Printable form of arbitrary bytes for an error line, cut at `max`: control bytes, the
/// characters terminal_refuses and invalid UTF-8 become '?' (report::outside_text's terminal
/// rule, which does not cut).
std::string printable(std::string_view s, std::size_t max = 120);
/// One word for a POSIX shell: returned as is when it holds nothing the shell would expand or
/// split, otherwise in single quotes (an inner ' becomes '\\'').
std::string shell_quote(std::string_view word);

}  // namespace cudoctor::text
