#pragma once
// The first LogScanner engine, kept as the reference the tests compare the Vectorscan engine with
// (tests/unit/explain_vectorscan_test.cpp): an RE2 alternation of the literals finds candidate
// lines, an RE2::Set runs every pattern on each candidate window. Same interface and contract as
// formats::LogScanner; not used by cudoctor itself.
#include <memory>
#include <vector>

#include "formats/log_scan.hpp"

namespace cudoctor::formats::detail {

class Re2LogScanner {
  public:
    [[nodiscard]] static Expected<Re2LogScanner> create(std::vector<LogPattern> patterns, ScanLimits limits = {});

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
