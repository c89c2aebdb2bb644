#pragma once
// `cudoctor explain`: known error messages in a log → causes, root first → tied to a machine.
//   catalog (data/error_catalog.tsv) ──▶ Reader (one pass over the streamed log) ──▶ causes
//   causes × Snapshot × KB ──tie_to_machine──▶ evidence that confirms or contradicts, and fixes
//   written for that machine.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "host/resources.hpp"
#include "kb/kb.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::formats {
class LogScanner;
}

namespace cudoctor::explain {

/// One row of the error catalog.
struct CatalogRow {
    std::string pattern;  ///< stable id of the message ("torch-driver-too-old")
    std::string cause;    ///< a cause id of causes.hpp (an old id in the table is read as its new one)
    /// "high" | "medium" | "low" (low rows only support a cause others found) | "context" (the
    /// setting a low signal means something in: a low row and a context row of one cause, both
    /// matched, name it at medium: `Killed` in a build, `FileNotFoundError` after a Popen of nvidia-smi)
    std::string confidence;
    std::string literal;                ///< a substring every match contains
    std::string regex;                  ///< RE2
    std::vector<std::string> captures;  ///< names of the capture groups, in order ("-" = unused)
    std::size_t line = 0;               ///< line in the table file
};

/// Parses the catalog table `name` (for messages) from `text`. Errc::parse "NAME:LINE: …" for a
/// malformed table, an unknown cause id, a confidence other than high/medium/low/context, a duplicated
/// pattern id, a regex RE2 rejects, or a captures list whose length differs from the regex's
/// capture groups.
[[nodiscard]] Expected<std::vector<CatalogRow>> parse_catalog(std::string_view name, std::string_view text);
/// The built-in catalog, or DIR/error_catalog.tsv when `kb_dir` is given and has that file
/// (the KB's override rule). Errc::not_found when DIR is not a folder; errors as parse_catalog.
[[nodiscard]] Expected<std::vector<CatalogRow>> load_catalog(const std::optional<std::string>& kb_dir);

/// A log line that matched.
struct MatchedLine {
    std::size_t line = 0;  ///< 1-based
    std::string text;      ///< printable (see formats::printable_line)
    std::string pattern;   ///< the catalog row that matched it
};

/// A fact of the machine about a cause.
struct Fact {
    std::string verdict;  ///< "confirms" | "contradicts" | "context"
    std::string text;
};

/// One cause found in the log.
struct Cause {
    std::string id;
    int rank = 0;
    snapshot::Layer layer = snapshot::Layer::platform;
    std::string confidence;  ///< "high" | "medium" | "low"
    std::string title;
    std::string explanation;
    std::vector<MatchedLine> matched_lines;  ///< by line number, at most 10
    std::size_t match_count = 0;             ///< distinct matched lines in the whole log (a floor when not exact)
    bool match_count_exact = true;           ///< false when the log had more matches than were kept to count lines by
    /// Values read out of the messages, by capture name, distinct, in order of appearance
    /// ({"soname": {"libcudnn.so.9"}}).
    std::map<std::string, std::vector<std::string>> values;
    std::vector<std::string> fix;
    std::vector<Fact> evidence;
    std::string consequence_of;  ///< the cause this one follows from ("" for a root)
    /// The check rules of rules/ids.hpp that, on the machine it was tied to, confirm this cause
    /// (they fired) or argue against it (they did not fire); both empty when not tied.
    std::vector<std::string> confirming_rules;
    std::vector<std::string> contradicting_rules;

    /// The first value captured under `name`, or "".
    std::string value(const std::string& name) const;
};

/// Reads a log in one pass and names its causes.
class Reader {
  public:
    /// Errc::parse when the rows cannot be compiled together (see formats::LogScanner::create).
    [[nodiscard]] static Expected<Reader> create(std::vector<CatalogRow> rows);
    Reader(Reader&&) noexcept;
    Reader& operator=(Reader&&) noexcept;
    ~Reader();

    /// Next bytes of the log, cut anywhere.
    void feed(std::string_view bytes);
    /// End of the log.
    void finish();
    /// Forgets the log read so far, to read another with the same compiled catalog.
    void reset();
    /// Empty, unless the catalog could not be compiled for this log (too large to compile
    /// together): then nothing was read, and causes() is empty.
    const std::string& error() const;
    /// The causes found so far, most fundamental first (by rank), consequences marked. A cause
    /// exists when a high or medium row matched; low rows only add lines and values to it.
    std::vector<Cause> causes() const;
    std::size_t lines() const;
    std::size_t bytes() const;

  private:
    Reader(std::vector<CatalogRow> rows, std::unique_ptr<formats::LogScanner> scanner);
    std::vector<CatalogRow> m_rows;
    std::unique_ptr<formats::LogScanner> m_scanner;
};

/// Checks each cause against a machine: adds evidence (which facts confirm or contradict it),
/// replaces general fixes by commands for this machine where it can, and raises or lowers the
/// confidence accordingly (confirmed only → high; contradicted only → one step lower). Also
/// names the rules that confirm or contradict each cause on this machine (rules::evaluate).
/// `resources` are the machine's memory and cores (read from its Host; unset for a saved
/// snapshot): a killed build's fix gets the job count that fits.
void tie_to_machine(std::vector<Cause>& causes, const snapshot::Snapshot& snap, const kb::Kb& kb,
                    const std::optional<host::BuildResources>& resources = std::nullopt);

}  // namespace cudoctor::explain
