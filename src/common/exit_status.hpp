#pragma once

namespace cudoctor {

/// The process exit codes, owned by main.
enum class ExitStatus : int {
    healthy = 0,   ///< nothing wrong
    problems = 1,  ///< findings at or above the --fail-on severity
    usage = 2,     ///< bad arguments or unusable input (a missing root, a broken snapshot)
    internal = 3,  ///< a bug: an exception escaped
    interrupted = 130,
};

}  // namespace cudoctor
