#pragma once
// The one printer's toolkit every renderer uses: the painter (ANSI colour, on or off), the
// escape for text we did not write (terminal, Markdown, SVG, JSON), the Markdown table cell and
// code span, join and the byte formatter. Pure functions, no I/O.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudoctor::report {

/// The colours and weights our renderers use (SGR codes inside).
enum class Ink { bold, dim, red, green, yellow, bold_red, bold_green };

/// Paints text with ANSI colour when colour is on, and returns it unchanged when off. Whether
/// colour is on (a terminal, NO_COLOR, --color) is the caller's decision, made once.
class Painter {
  public:
    explicit Painter(bool color) : m_color(color) {}
    bool color() const { return m_color; }
    /// "ESC[32m" + text + "ESC[0m" when on; `text` when off.
    std::string paint(Ink ink, std::string_view text) const;

  private:
    bool m_color;
};

/// Where text we did not write (process names, labels, paths, log lines) is going.
enum class Medium {
    terminal,    ///< C0 controls but TAB (ESC, CR, LF too), DEL, C1 controls, the bidi overrides and
                 ///< isolates (U+202A–U+202E, U+2066–U+2069) and invalid UTF-8 become '?': no
                 ///< escape sequence, carriage return or reordering can rewrite what the screen
                 ///< shows; valid UTF-8 stays
    markdown,    ///< as terminal, then inline Markdown and table cells: '\\' '|' '`' escaped with
                 ///< a backslash, '<' → "&lt;" (no HTML), a line break → "<br>"
    svg,         ///< as terminal, then XML 1.0: & < > " ' as entities, U+FFFE and U+FFFF (no XML
                 ///< characters) → '?'
    prometheus,  ///< a label value of the Prometheus text exposition format: as terminal, but a line
                 ///< break becomes \n, a backslash \\ and a double quote \" (the format's escapes)
};

/// Text from outside made safe for `medium`. Never cuts (text::printable cuts for error lines).
[[nodiscard]] std::string outside_text(std::string_view text, Medium medium);

/// Several lines from outside for the terminal: each line through outside_text(…, terminal),
/// the line breaks kept (a CRLF's CR dropped). For a whole text view whose own words hold no
/// control bytes (no colour): escaping the finished view escapes every value in it.
[[nodiscard]] std::string outside_lines(std::string_view text);

/// A Markdown table cell: outside_text(text, Medium::markdown), or `empty` when that is empty.
[[nodiscard]] std::string markdown_cell(std::string_view text, std::string_view empty = "");

/// A Markdown code span holding text from outside, shown verbatim: terminal-safe, a line break
/// as a space, '|' as "\|" (a table cell would split there), fenced with one backtick more than
/// the longest run inside. "" for empty text.
[[nodiscard]] std::string markdown_code(std::string_view text);

/// A fenced Markdown code block of lines from outside, shown verbatim: each line terminal-safe
/// and prefixed with `indent`, fenced with more backticks than any run inside (at least three),
/// `info` after the opening fence ("sh"). Ends with a line break.
[[nodiscard]] std::string markdown_block(std::string_view text, std::string_view info, std::string_view indent = "");

/// JSON for people and programs: `j` dumped with `indent`, invalid UTF-8 in any string (a file
/// name, a process name) replaced by U+FFFD instead of throwing. Every --json output uses it.
[[nodiscard]] std::string json_text(const nlohmann::json& j, int indent = 2);

/// The parts with `sep` between them; with `skip_empty`, empty parts are left out (and get no
/// separator).
[[nodiscard]] std::string join(const std::vector<std::string>& parts, std::string_view sep, bool skip_empty = false);

/// The ways our commands write a number of bytes today, each kept byte for byte:
enum class ByteStyle {
    significant,     ///< binary units, three significant digits, signed: "1.5 GiB", "380 MiB", "12 KiB", "12 B" (watch)
    one_decimal,     ///< binary units, one decimal: "4.1 GiB", "812.0 MiB", "12 B" (list)
    whole_from_ten,  ///< binary units, one decimal below 10, none above: "4.0 GiB", "512 MiB", "12 bytes", "1 byte" (verify-installer)
    decimal,         ///< SI units: "1.7 GB", "12 MB", "3 kB", "12 bytes" (arch)
};

/// A number of bytes for people, in the style named.
[[nodiscard]] std::string bytes_text(double bytes, ByteStyle style);

}  // namespace cudoctor::report
