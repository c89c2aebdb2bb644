#pragma once
// Shell start-up files (~/.bashrc, ~/.profile, /etc/profile.d/*.sh, /etc/environment): the plain
// top-level variable assignments they make, read conservatively. Only `NAME=VALUE` and
// `export NAME=VALUE` lines are understood; lines inside `if`/`case`/loops/functions, `source`d
// files, command substitutions, several commands on one line and anything else are skipped, not
// guessed.
#include <string>
#include <string_view>
#include <vector>

namespace cudoctor::formats {

/// One top-level assignment of a start-up file.
struct ShellAssignment {
    int line = 0;           ///< 1-based line number
    std::string text;       ///< the line as written, without surrounding blanks
    std::string name;       ///< "LD_LIBRARY_PATH"
    std::string value;      ///< quotes removed, `~`, `$HOME` and `${HOME}` replaced by the home (when known)
    bool exported = false;  ///< written with `export`
    /// The value refers to the variable's own old value ($NAME, ${NAME}, ${NAME:+…}, ${NAME:-…}).
    bool keeps_old = false;
};

/// The assignments of a start-up file, in file order. `home` is the home of the file's owner
/// ("" for system files: `~` and `$HOME` are then left as written). Never fails: bytes it does not
/// understand (binary data, non-ASCII, unclosed quotes) make it skip those lines.
std::vector<ShellAssignment> parse_shell_rc(std::string_view text, std::string_view home);

/// One entry of a colon-separated value (PATH, LD_LIBRARY_PATH) as an assignment of `name` writes
/// it: a folder, or the variable's old value ($NAME, ${NAME}, ${NAME:+:${NAME}}, ${NAME:+${NAME}:}).
struct PathEntry {
    bool old_value = false;
    std::string dir;  ///< the folder as written ("" for old_value); may hold other `$` references
};

/// The entries of `value`, in order; empty entries are dropped. An expansion it does not know
/// stays inside `dir` as written.
std::vector<PathEntry> path_entries(std::string_view value, std::string_view name);

}  // namespace cudoctor::formats
