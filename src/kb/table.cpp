#include "kb/table.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/text.hpp"

namespace cudoctor::kb {

namespace {

constexpr std::string_view kSourcePrefix = "# source:";

Unexpected<Error> parse_error(std::string_view name, std::size_t line, const std::string& what) {
    return fail(Errc::parse, std::string(name) + ":" + std::to_string(line) + ": " + what);
}

std::vector<std::string> split_cells(std::string_view line) {
    std::vector<std::string> cells;
    for (auto cell : text::split(line, '\t')) cells.emplace_back(text::trim(cell));
    return cells;
}

}  // namespace

Expected<Table> Table::parse(std::string_view name, std::string_view text) {
    Table table;
    table.m_name = std::string(name);
    const auto lines = text::lines(text);
    if (lines.empty() || !text::starts_with(lines[0], kSourcePrefix)) {
        return parse_error(name, 1, "the first line must be '# source: …' naming where the facts come from");
    }
    table.m_source = std::string(text::trim(lines[0].substr(kSourcePrefix.size())));
    if (table.m_source.empty()) return parse_error(name, 1, "the '# source:' line names no source");

    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        const std::size_t number = i + 1;
        if (line.empty() || line.front() == '#') continue;
        auto cells = split_cells(line);
        if (table.m_header.empty()) {
            for (std::size_t c = 0; c < cells.size(); ++c) {
                if (cells[c].empty()) return parse_error(name, number, "empty column name in the header");
                if (std::find(cells.begin(), cells.begin() + c, cells[c]) != cells.begin() + c) {
                    return parse_error(name, number, "column '" + cells[c] + "' appears twice in the header");
                }
            }
            table.m_header = std::move(cells);
            table.m_header_line = number;
            continue;
        }
        if (cells.size() != table.m_header.size()) {
            return parse_error(name, number,
                               "expected " + std::to_string(table.m_header.size()) + " tab-separated cells, found " +
                                   std::to_string(cells.size()));
        }
        table.m_rows.push_back(Row{number, std::move(cells)});
    }
    if (table.m_header.empty()) return parse_error(name, lines.size(), "no header row");
    return table;
}

std::optional<std::size_t> Table::column(std::string_view column_name) const {
    const auto it = std::find(m_header.begin(), m_header.end(), column_name);
    if (it == m_header.end()) return std::nullopt;
    return static_cast<std::size_t>(it - m_header.begin());
}

Expected<void> Table::require_columns(std::initializer_list<std::string_view> names) const {
    for (const auto name : names) {
        if (!column(name)) return parse_error(m_name, m_header_line, "missing column '" + std::string(name) + "'");
    }
    return {};
}

std::string RowView::text(std::string_view column) const {
    const auto index = m_table.column(column);
    if (!index || *index >= m_row.cells.size()) return {};
    return m_row.cells[*index];
}

Unexpected<Error> RowView::error(std::string_view column, std::string_view what) const {
    return parse_error(m_table.name(), m_row.line, "column " + std::string(column) + ": " + std::string(what));
}

Expected<Version> RowView::version(std::string_view column) const {
    const std::string cell = text(column);
    if (auto v = parse_strict_version(cell)) return *v;
    return error(column, "'" + text::printable(cell) + "' is not a version");
}

Expected<std::optional<Version>> RowView::optional_version(std::string_view column) const {
    if (text(column).empty()) return std::optional<Version>();
    auto v = version(column);
    if (!v) return Unexpected<Error>(v.error());
    return std::optional<Version>(*v);
}

Expected<std::optional<int>> RowView::optional_int(std::string_view column) const {
    const std::string cell = text(column);
    if (cell.empty()) return std::optional<int>();
    int value = 0;
    const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    if (ec != std::errc() || end != cell.data() + cell.size() || value < 0) {
        return error(column, "'" + text::printable(cell) + "' is not a whole number");
    }
    return std::optional<int>(value);
}

Expected<std::optional<bool>> RowView::optional_yes_no(std::string_view column) const {
    const std::string cell = text(column);
    if (cell.empty()) return std::optional<bool>();
    if (cell == "yes") return std::optional<bool>(true);
    if (cell == "no") return std::optional<bool>(false);
    return error(column, "'" + text::printable(cell) + "' is not yes or no");
}

Expected<std::string> RowView::compute_capability(std::string_view column) const {
    std::string cell = text(column);
    if (cell.empty() || is_compute_capability(cell)) return cell;
    return error(column, "'" + text::printable(cell) + "' is not a compute capability");
}

std::optional<Version> parse_strict_version(std::string_view cell) {
    if (cell.empty() || cell.front() == '.' || cell.back() == '.') return std::nullopt;
    char previous = 0;
    for (const char c : cell) {
        if (c == '.' && previous == '.') return std::nullopt;
        if (c != '.' && !std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        previous = c;
    }
    return Version::parse(cell);
}

bool is_compute_capability(std::string_view text) {
    const auto dot = text.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot > 2) return false;
    std::size_t i = dot + 1;
    if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    for (std::size_t j = 0; j < dot; ++j) {
        if (!std::isdigit(static_cast<unsigned char>(text[j]))) return false;
    }
    ++i;
    // One optional feature-set suffix: "a" (arch-specific) or "f" (family).
    return i == text.size() || (i + 1 == text.size() && (text[i] == 'a' || text[i] == 'f'));
}

}  // namespace cudoctor::kb
