#pragma once
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudoctor {

/// A dotted numeric version ("550.54.14", "12.4", "9.1.0"). Comparison is numeric, part by part;
/// missing trailing parts compare as zero, so 12.4 == 12.4.0.
class Version {
  public:
    Version() = default;
    explicit Version(std::vector<int> parts) : m_parts(std::move(parts)) {}

    /// Parses the leading dotted-number run of `text` ("12.4.131", "2.4.0+cu121" → 2.4.0).
    /// Returns nullopt when `text` does not start with a digit or a part overflows.
    static std::optional<Version> parse(std::string_view text);

    int major() const { return part(0); }
    int minor() const { return part(1); }
    int patch() const { return part(2); }
    int part(std::size_t i) const { return i < m_parts.size() ? m_parts[i] : 0; }
    std::size_t size() const { return m_parts.size(); }
    bool empty() const { return m_parts.empty(); }

    /// The first `n` parts ("12.4.131".truncated(2) == "12.4").
    Version truncated(std::size_t n) const;
    /// The version as written: "535.104.05" keeps its zero ("535.104.5" would be another
    /// driver's name). A Version built from parts joins them.
    std::string str() const;

    friend std::strong_ordering operator<=>(const Version& a, const Version& b);
    friend bool operator==(const Version& a, const Version& b) { return std::is_eq(a <=> b); }

  private:
    std::vector<int> m_parts;
    std::string m_text;  ///< the parsed text; empty when built from parts
};

}  // namespace cudoctor
