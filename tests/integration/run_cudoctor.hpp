#pragma once
// Runs the real cudoctor executable for the scenario tests: an argv vector (no shell), a fixed
// environment, a timeout, and captured stdout, stderr and exit status.
#include <chrono>
#include <string>
#include <vector>

namespace cudoctor::test {

struct RunResult {
    int exit_code = -1;      ///< the exit status; -1 when the child was killed by a signal or never ran
    int signal = 0;          ///< the signal that ended the child, 0 when it exited
    bool timed_out = false;  ///< killed because it ran past the timeout
    std::string out;         ///< everything written to stdout
    std::string err;         ///< everything written to stderr; also why the child could not start

    /// One line for a failure message: "exit 1", "killed by signal 11", "timed out".
    [[nodiscard]] std::string describe() const;
};

/// Runs `binary args...` with exactly `environment` ("KEY=VALUE" entries) and /dev/null as stdin,
/// capturing stdout and stderr. A child still running after `timeout` is killed (SIGKILL) and
/// reported with timed_out set. A binary that cannot be started gives exit_code -1 and the reason
/// in err.
[[nodiscard]] RunResult run_program(const std::string& binary, const std::vector<std::string>& args,
                                    const std::vector<std::string>& environment, std::chrono::milliseconds timeout);

/// The environment the scenario runs get. It describes a machine other than the fixture roots
/// (CUDA_HOME, PATH, LD_LIBRARY_PATH, CONDA_PREFIX, VIRTUAL_ENV point at this machine's
/// /usr/local/cuda-13.0 and at "real-machine" folders), so that a rooted run which reads the
/// environment of the process instead of the root's /proc/self/environ shows it in its output.
[[nodiscard]] std::vector<std::string> outside_environment();

/// Strings that appear only in outside_environment() and on the real machine, never in a root.
[[nodiscard]] std::vector<std::string> outside_markers();

/// run_program on the cudoctor executable (CUDOCTOR_BINARY) with outside_environment().
[[nodiscard]] RunResult run_cudoctor(const std::vector<std::string>& args, std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace cudoctor::test
