#pragma once
// The first LogScanner engine, kept as the reference the tests compare the Vectorscan engine with
// (tests/unit/explain_vectorscan_test.cpp): an RE2 alternation of the literals finds candidate
// lines, an RE2::Set runs every pattern on each candidate window. Same interface and contract as
// formats::LogScanner, which reads a log under 8 MiB with it (and any log where Vectorscan is
// missing).
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "formats/log_scan.hpp"

namespace cudoctor::formats::detail {

class Re2LogScanner {
  public:
    /// `text`, when given, is the whole text this scanner will read (until reset()): a pattern
    /// whose literal is provably in every match of it (literal_required) and is not in the text
    /// is not compiled, nor is a literal the text lacks put in the pre-filter. The same hits on
    /// that text, for a fraction of the compile (a message pasted to `explain` holds a few of
    /// the catalog's literals); on another text, hits may be missing.
    [[nodiscard]] static Expected<Re2LogScanner> create(std::vector<LogPattern> patterns, ScanLimits limits = {},
                                                        std::optional<std::string_view> text = std::nullopt);
    /// The refusals create() gives for these patterns' ids, literals and syntax, without compiling
    /// them (RE2 parses each); only a set too large to compile together gets past it.
    [[nodiscard]] static Expected<void> check(const std::vector<LogPattern>& patterns);
    /// create() for patterns check() has taken: they are not checked again.
    [[nodiscard]] static Expected<Re2LogScanner> create_checked(std::vector<LogPattern> patterns, ScanLimits limits,
                                                                std::optional<std::string_view> text);

    Re2LogScanner(Re2LogScanner&&) noexcept;
    Re2LogScanner& operator=(Re2LogScanner&&) noexcept;
    ~Re2LogScanner();

    void feed(std::string_view bytes);
    void finish();
    void reset();

    const std::vector<LogHit>& hits() const;
    std::size_t match_count(std::size_t index) const;
    const std::vector<LogPattern>& patterns() const;
    std::size_t lines() const;
    std::size_t bytes() const;

  private:
    struct Impl;
    explicit Re2LogScanner(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace cudoctor::formats::detail
