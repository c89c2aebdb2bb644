#include "common/version.hpp"

#include <charconv>

namespace cudoctor {

std::optional<Version> Version::parse(std::string_view text) {
    std::vector<int> parts;
    std::size_t i = 0;
    while (i < text.size()) {
        int value = 0;
        auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
        if (ec != std::errc{} || value < 0) break;
        parts.push_back(value);
        i = static_cast<std::size_t>(end - text.data());
        if (i + 1 < text.size() && text[i] == '.' && text[i + 1] >= '0' && text[i + 1] <= '9') {
            ++i;
            continue;
        }
        break;
    }
    if (parts.empty()) return std::nullopt;
    Version v(std::move(parts));
    v.m_text = std::string(text.substr(0, i));
    return v;
}

Version Version::truncated(std::size_t n) const {
    std::vector<int> parts(m_parts.begin(), m_parts.begin() + static_cast<long>(std::min(n, m_parts.size())));
    Version v(std::move(parts));
    if (!m_text.empty()) {
        std::size_t end = 0;
        for (std::size_t k = 0; k < v.size(); ++k) {
            end = m_text.find('.', end + (k ? 1 : 0));
            if (end == std::string::npos) break;
        }
        v.m_text = m_text.substr(0, end);
    }
    return v;
}

std::string Version::str() const {
    if (!m_text.empty()) return m_text;
    std::string out;
    for (std::size_t i = 0; i < m_parts.size(); ++i) {
        if (i) out += '.';
        out += std::to_string(m_parts[i]);
    }
    return out;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
    const std::size_t n = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (auto c = a.part(i) <=> b.part(i); std::is_neq(c)) return c;
    }
    return std::strong_ordering::equal;
}

}  // namespace cudoctor
