#pragma once
// watch's live status line: one `\r` line on a terminal, redrawn each sample. It fits the
// terminal's width, however many GPUs there are: every GPU in full when that fits, else a
// summary of all of them ("8 GPUs · mem max 71% · util max 99% · max 83°C"), else less, and
// never a column past the width (a wrapped line would be redrawn one line lower each time).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "watch/reading.hpp"

namespace cudoctor::watch {

/// The status line for a sample, at most `width` columns (one column per character; a wide
/// one, U+1100 and above, counted as two). `elapsed` in seconds, `samples` taken so far,
/// `reports` driver reports seen. Pure.
[[nodiscard]] std::string status_line(double elapsed, const Reading& reading, std::size_t samples, std::size_t reports, std::size_t width);

/// Columns `text` takes on a terminal, as status_line counts them. Pure.
[[nodiscard]] std::size_t display_columns(std::string_view text);

/// The width of the terminal: `ws_col` (TIOCGWINSZ) when known and non-zero, else `columns_env`
/// (COLUMNS) when it is a number from 1 to 10000, else 80. Pure.
[[nodiscard]] std::size_t terminal_width(std::optional<unsigned> ws_col, const char* columns_env);

/// terminal_width for the terminal behind file descriptor `fd` and this process's COLUMNS.
[[nodiscard]] std::size_t terminal_width(int fd);

}  // namespace cudoctor::watch
