#pragma once
// The fast LogScanner engine: one Vectorscan pass over each block, for the whole catalog at once,
// finds the few windows worth RE2's time (log_scan_vectorscan.cpp says how). Same interface and
// contract as formats::LogScanner, which runs it (log_scan.cpp says when), and the same hits as
// the RE2 engine (log_scan_re2.hpp), line for line.
#include <memory>
#include <vector>

#include "formats/log_scan.hpp"

namespace cudoctor::formats::detail {

class VectorscanLogScanner {
  public:
    /// LogScanner::create's errors, and Errc::parse ("literals: ...") when Vectorscan refuses the
    /// literals, Errc::io when it cannot allocate its scratch space.
    [[nodiscard]] static Expected<VectorscanLogScanner> create(std::vector<LogPattern> patterns, ScanLimits limits = {});

    VectorscanLogScanner(VectorscanLogScanner&&) noexcept;
    VectorscanLogScanner& operator=(VectorscanLogScanner&&) noexcept;
    ~VectorscanLogScanner();

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
    explicit VectorscanLogScanner(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace cudoctor::formats::detail
