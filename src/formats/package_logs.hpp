#pragma once
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

/// Debian/Ubuntu package logs: what was installed, upgraded or removed, when, and by whom.
namespace cudoctor::formats {

/// One action line of /var/log/dpkg.log:
/// "2024-06-12 06:41:26 upgrade libnvidia-compute-545:amd64 535.183.01-0ubuntu1 545.29.06-0ubuntu1".
struct DpkgLogAction {
    std::string when;         ///< "2024-06-12 06:41:26"
    std::string action;       ///< "install" | "upgrade" | "remove" | "purge"
    std::string package;      ///< "libnvidia-compute-545" (the ":amd64" suffix removed)
    std::string old_version;  ///< "" for "<none>"
    std::string new_version;  ///< "" for "<none>"
};

/// The install/upgrade/remove/purge lines of a dpkg.log, in file order. "status", "configure",
/// "startup", "trigproc" and malformed lines are skipped; never fails.
std::vector<DpkgLogAction> parse_dpkg_log(std::string_view text);

/// Which packages a caller wants, by name without ":arch" ("libnvidia-compute-545").
using PackageFilter = std::function<bool(std::string_view package)>;

/// parse_dpkg_log() of only the actions on packages `keep` accepts: the same actions in the same
/// order, the others never built (a dpkg.log holds thousands of lines, a probe wants a few).
std::vector<DpkgLogAction> parse_dpkg_log(std::string_view text, const PackageFilter& keep);

/// True when `text` holds any of `words` (byte for byte).
bool holds_any(std::string_view text, std::span<const std::string_view> words);

/// The whole lines of `text` that hold any of `words`, each with its line ending, in text order.
/// dpkg.log's lines stand alone: when `keep` accepts only names holding one of `words`,
/// parse_dpkg_log(lines_holding(text, words), keep) is parse_dpkg_log(text, keep).
std::string lines_holding(std::string_view text, std::span<const std::string_view> words);

/// One transaction of /var/log/apt/history.log.
struct AptTransaction {
    std::string start;         ///< "2024-06-12  06:41:07" as written
    std::string commandline;   ///< "/usr/bin/unattended-upgrade", "apt-get install cuda"
    std::string requested_by;  ///< "alice (1000)" where apt recorded it
    /// Each "Install:", "Upgrade:", "Remove:", "Purge:", "Downgrade:", "Reinstall:" package:
    /// {action in lower case, package without ":arch", versions as listed}.
    struct Change {
        std::string action, package, old_version, new_version;
    };
    std::vector<Change> changes;
};

/// Transactions separated by blank lines, in file order; a block without "Start-Date:" is
/// skipped; never fails.
std::vector<AptTransaction> parse_apt_history(std::string_view text);

/// parse_apt_history() with only the changes to packages `keep` accepts; every transaction is
/// still returned, in order (with no changes when none is kept).
std::vector<AptTransaction> parse_apt_history(std::string_view text, const PackageFilter& keep);

}  // namespace cudoctor::formats
