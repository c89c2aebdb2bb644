#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// Scanning logs for known error messages: many patterns, one pass over a streamed log of any
/// size. Each pattern has a literal (a substring every match of it contains); one automaton over
/// all literals finds the few lines worth a closer look, and only those lines (plus the line after
/// them, for messages that wrap) go through the regular expressions. Bytes are bytes: binary junk,
/// invalid UTF-8 and NULs are matched like any other text; lines break at "\n" and "\r" (a
/// progress bar's carriage returns make lines too), and a line longer than ScanLimits::max_line
/// is looked at only in a window around each literal found in it, so a line of megabytes costs
/// its length and nothing more.
namespace cudoctor::formats {

/// One known message: its stable id, a literal that every match contains, and an RE2 regular
/// expression (byte-oriented, Latin-1; capture groups are the values read out of the message).
struct LogPattern {
    std::string id;
    std::string literal;
    std::string regex;
};

/// One match of a pattern on one line of the log.
struct LogHit {
    std::size_t pattern = 0;          ///< index into the patterns given to LogScanner::create
    std::size_t line = 0;             ///< 1-based number of the line the match starts on
    std::string text;                 ///< the line(s) the match covers, made printable, cut at 400 bytes
    std::vector<std::string> groups;  ///< capture groups 1..n as matched ("" for a group that took no part)
};

struct ScanLimits {
    std::size_t max_line = 8192;       ///< longer lines are matched in windows of this size
    std::size_t hits_per_pattern = 8;  ///< hits kept per pattern (all are counted)
};

class LogScanner {
  public:
    /// Compiles the patterns. Errc::parse naming the pattern for an empty id or literal, a
    /// literal or regex with non-ASCII bytes, or a regex RE2 rejects (its message included);
    /// Errc::usage for an empty pattern list.
    [[nodiscard]] static Expected<LogScanner> create(std::vector<LogPattern> patterns, ScanLimits limits = {});

    LogScanner(LogScanner&&) noexcept;
    LogScanner& operator=(LogScanner&&) noexcept;
    ~LogScanner();

    /// The next bytes of the log, cut anywhere (mid-line, mid-character). Never fails.
    void feed(std::string_view bytes);
    /// The end of the log: a last line without a line break is scanned too.
    void finish();
    /// Forgets everything read (hits, counts, lines) to scan another log with the same patterns.
    void reset();

    /// The kept hits, in the order they were found (by line within each pattern's limit).
    const std::vector<LogHit>& hits() const;
    /// How many lines pattern `index` matched, kept or not.
    std::size_t match_count(std::size_t index) const;
    const std::vector<LogPattern>& patterns() const;
    /// Lines seen so far ("\n" count, plus a last unterminated line after finish()).
    std::size_t lines() const;
    std::size_t bytes() const;
    /// Empty, unless the engine this log needed could not be compiled (patterns that pass
    /// create() but are too large to compile together): then nothing was scanned.
    const std::string& error() const;
    /// The engine scanning this log: "vectorscan" or "re2", as CUDOCTOR_LOG_ENGINE asks. By
    /// default "re2" until the log passes 8 MiB, then "vectorscan" (compiling Vectorscan's
    /// databases costs about what RE2 takes for that much). Both find the same hits.
    std::string_view engine() const;

  private:
    struct Impl;
    explicit LogScanner(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

/// How many capturing groups the RE2 pattern `regex` has, read from its text without compiling
/// it (RE2::NumberOfCapturingGroups compiles the whole pattern first): each "(" that is not
/// escaped, not in a class [...] or a \Q...\E quote, and not "(?" unless "(?P<name>". Meant for
/// a pattern RE2 parses (RE2::Set::Add says); for one it does not, the count means nothing.
std::size_t capturing_groups(std::string_view regex);

/// Text safe to print and to put in JSON: valid UTF-8 kept, ANSI colour sequences dropped, other
/// control bytes and invalid UTF-8 bytes replaced by '?', cut at `max` bytes (on a character
/// boundary) with "…" appended when cut.
std::string printable_line(std::string_view bytes, std::size_t max = 400);

}  // namespace cudoctor::formats
