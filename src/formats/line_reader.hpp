#pragma once
#include <cstddef>
#include <string_view>

namespace cudoctor::formats::detail {

/// Walks text line by line without allocating: LF or CRLF endings, a final line without a newline
/// is still a line, and a trailing newline adds no empty line (as text::lines, but lazily, for
/// files of many megabytes).
class LineReader {
  public:
    explicit LineReader(std::string_view text) : m_text(text) {}

    /// Stores the next line (without its ending) in `line`; false at the end of the text.
    bool next(std::string_view& line) {
        if (m_pos >= m_text.size()) return false;
        auto end = m_text.find('\n', m_pos);
        if (end == std::string_view::npos) end = m_text.size();
        line = m_text.substr(m_pos, end - m_pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        m_pos = end + 1;
        return true;
    }

    /// Offset of the next line's first byte.
    std::size_t position() const { return m_pos; }
    void seek(std::size_t pos) { m_pos = pos; }

  private:
    std::string_view m_text;
    std::size_t m_pos = 0;
};

}  // namespace cudoctor::formats::detail
