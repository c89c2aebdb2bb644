#pragma once
// A Plan: what a command would change on the machine, as an ordered list of steps, each a file
// operation or an exact command, with what it changes and its exact undo. Built read-only (the
// Host is only read), printed by default, executed by plan::apply() only on --apply.
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "host/host.hpp"

namespace cudoctor::plan {

enum class StepKind {
    symlink,      ///< make (or repoint) a symbolic link atomically: new link + rename(2)
    write_file,   ///< write a whole file atomically: temporary file + rename(2)
    edit_file,    ///< replace a file's content (some lines changed or dropped), atomically
    remove_tree,  ///< remove a file, link or folder tree (moved aside first, deleted at the end)
    make_folder,  ///< make one folder (its parent must exist, or be made by an earlier step)
    command,      ///< run an exact argv (never a shell string)
};

/// One step. Machine paths (inside --root when the Host is rooted).
struct Step {
    StepKind kind = StepKind::command;
    std::string path;               ///< symlink / write_file / edit_file / remove_tree / make_folder: the machine path
    std::string target;             ///< symlink: the link's target, as stored
    std::string before;             ///< edit_file: the content the plan was made from (checked before writing)
    std::string content;            ///< write_file / edit_file: the new content
    unsigned mode = 0644;           ///< write_file: permission bits of a new file
    std::vector<std::string> argv;  ///< command
    /// command on a rooted Host: run this machine's real argv[0] with these arguments inserted
    /// after it ("{root}" replaced by the image folder), e.g. {"--root={root}"} for dpkg. Empty:
    /// argv[0] is taken from inside the image.
    std::vector<std::string> rooted_args;
    bool needs_root = false;  ///< command: only root may run it on a real machine
    /// command on a rooted Host: why it would run something of the image after all (dpkg runs a
    /// package's maintainer scripts in a chroot of the image); apply() refuses such a step.
    std::string runs_image_content;
    std::string what;   ///< one line in the user's words: what this step changes
    std::string undo;   ///< the exact undo, as commands a person can run
    std::string shell;  ///< the step as a shell command line, for a person to read or run
};

/// An ordered list of steps, with the warnings and reminders that go with it.
struct Plan {
    std::string title;  ///< "switch /usr/local/cuda to 12.4"
    std::vector<Step> steps;
    std::vector<std::string> warnings;  ///< what the change breaks or may break
    std::vector<std::string> notes;     ///< reminders that need no step
    /// Commands that show the change took, to run after it ("/usr/local/cuda/bin/nvcc --version").
    std::vector<std::string> afterwards;
    /// The command that goes back to the machine as it was ("sudo cudoctor switch 12.4 --apply");
    /// "" when there is none to give.
    std::string rollback;

    bool empty() const { return steps.empty(); }
    /// True when some step writes where only root may, on the real machine (any file step
    /// outside the user's home, any command marked needs_root).
    bool touches_system() const;
};

/// Points `path` at `target` (replacing a link that is there). The undo names the link's
/// current target, or removal when there is none. Never fails: a folder where the link should be
/// is caught by apply()'s preflight.
Step make_symlink(const host::Host& host, std::string path, std::string target, std::string what);
/// Writes `content` to `path`; the undo restores the current content's absence or says how.
Step write_file(const host::Host& host, std::string path, std::string content, std::string what, unsigned mode = 0644);
/// Replaces the content of an existing file (`before`, as read now) with `after`.
Step edit_file(std::string path, std::string before, std::string after, std::string what);
/// Removes a file, link or folder tree; the undo says what must be restored from where.
Step remove_tree(std::string path, std::string what, std::string undo);
/// Makes the folder `path` (mode 0755); the undo removes it again. Steps after it may write into
/// it: apply()'s preflight takes a folder an earlier step makes as there.
Step make_folder(std::string path, std::string what);
/// Runs `argv` exactly; `undo` is the command that reverses it (commands cannot be rolled back
/// by cudoctor, so the undo is printed when a later step fails).
Step run_command(std::vector<std::string> argv, std::string what, std::string undo, bool needs_root = true,
                 std::vector<std::string> rooted_args = {});

/// argv as one line for a POSIX shell (each word quoted where needed).
std::string shell_line(const std::vector<std::string>& argv);

}  // namespace cudoctor::plan
