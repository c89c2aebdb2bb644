#pragma once
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "common/version.hpp"

/// The one reader of our own data format, used by every data/*.tsv table:
///   line 1      `# source: …` naming where the facts come from (required)
///   `#` lines   comments, anywhere
///   first other line: the header (tab-separated column names)
///   every further non-empty line: one row, exactly as many tab-separated cells as the header.
namespace cudoctor::kb {

class Table {
  public:
    struct Row {
        std::size_t line = 0;  ///< 1-based line number in the file, for error messages
        std::vector<std::string> cells;
    };

    /// Parses `text` of the table file `name`. Errc::parse "NAME:LINE: what" on a missing source
    /// line, a missing or duplicated header column, or a row with the wrong number of cells.
    /// Cells are trimmed of surrounding spaces. Pure: no I/O.
    [[nodiscard]] static Expected<Table> parse(std::string_view name, std::string_view text);

    const std::string& name() const { return m_name; }
    /// The text after `# source:` on the first line.
    const std::string& source() const { return m_source; }
    const std::vector<std::string>& header() const { return m_header; }
    std::size_t header_line() const { return m_header_line; }
    const std::vector<Row>& rows() const { return m_rows; }
    std::optional<std::size_t> column(std::string_view column_name) const;

    /// Errc::parse "NAME:HEADER_LINE: missing column 'x'" unless every named column is present.
    /// Extra columns are allowed: an older binary reads a newer table.
    [[nodiscard]] Expected<void> require_columns(std::initializer_list<std::string_view> names) const;

  private:
    std::string m_name;
    std::string m_source;
    std::vector<std::string> m_header;
    std::size_t m_header_line = 0;
    std::vector<Row> m_rows;
};

/// Typed access to one row's cells by column name, with errors naming file, line and column.
class RowView {
  public:
    RowView(const Table& table, const Table::Row& row) : m_table(table), m_row(row) {}

    std::size_t line() const { return m_row.line; }
    /// The cell's text; empty when the column is absent.
    std::string text(std::string_view column) const;
    /// A required dotted version ("12.4.1"): the whole cell must be digits and dots.
    [[nodiscard]] Expected<Version> version(std::string_view column) const;
    /// Like version(), but an empty cell is nullopt.
    [[nodiscard]] Expected<std::optional<Version>> optional_version(std::string_view column) const;
    /// A non-negative integer, or nullopt for an empty cell.
    [[nodiscard]] Expected<std::optional<int>> optional_int(std::string_view column) const;
    /// "yes" / "no", or nullopt for an empty cell.
    [[nodiscard]] Expected<std::optional<bool>> optional_yes_no(std::string_view column) const;
    /// A compute capability ("8.9", "9.0a"), or "" for an empty cell.
    [[nodiscard]] Expected<std::string> compute_capability(std::string_view column) const;
    /// Errc::parse "NAME:LINE: column COLUMN: WHAT".
    Unexpected<Error> error(std::string_view column, std::string_view what) const;

  private:
    const Table& m_table;
    const Table::Row& m_row;
};

/// Parses a whole cell as a dotted version: digits separated by single dots, nothing else.
std::optional<Version> parse_strict_version(std::string_view cell);
/// True for "8.9", "12.0", "9.0a", "10.0f".
bool is_compute_capability(std::string_view text);

}  // namespace cudoctor::kb
