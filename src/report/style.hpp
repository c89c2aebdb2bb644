#pragma once
// The one printer's toolkit every renderer uses: the painter (ANSI colour, on or off), the
// escape for text we did not write (terminal, Markdown, SVG), the Markdown table cell, join and
// the byte formatter. Pure functions, no I/O.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
    terminal,  ///< C0 controls but TAB, ESC, DEL, C1 controls and invalid UTF-8 become '?' (no
               ///< escape sequence or carriage return can rewrite the screen); valid UTF-8 stays
    markdown,  ///< as terminal, then a table cell: '|' → "\|", a line break → "<br>"
    svg,       ///< as terminal, then XML: & < > " as entities
};

/// Text from outside made safe for `medium`. Never cuts (text::printable cuts for error lines).
[[nodiscard]] std::string outside_text(std::string_view text, Medium medium);

/// A Markdown table cell: outside_text(text, Medium::markdown), or `empty` when that is empty.
[[nodiscard]] std::string markdown_cell(std::string_view text, std::string_view empty = "");

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
