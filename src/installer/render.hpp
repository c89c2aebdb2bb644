#pragma once
// The verify-installer report as text (a short list, most important first) or JSON.
#include <chrono>
#include <ostream>

#include "installer/verify.hpp"

namespace cudoctor::installer {

/// Human report: the file, what it is, each check, the verdict and the fixes. `color` adds ANSI
/// colours to the status words.
void render_text(const VerifyReport& report, bool color, std::ostream& out);

/// The report as one JSON object ("verdict", "good", "checks", "fixes", "makeself", …).
void render_json(const VerifyReport& report, std::ostream& out);

/// A progress bar on a terminal: "[#####.....]  42%  1.7 GiB of 4.1 GiB  1.2 GiB/s", redrawn
/// at most ten times a second with '\r', erased by finish(). Does nothing when disabled.
class ProgressBar {
  public:
    ProgressBar(std::ostream& out, bool enabled) : m_out(out), m_enabled(enabled) {}
    void update(std::uint64_t done, std::uint64_t total);
    void finish();

  private:
    std::ostream& m_out;
    bool m_enabled;
    bool m_drawn = false;
    std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point m_last{};
};

}  // namespace cudoctor::installer
