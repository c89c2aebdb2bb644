#pragma once
// Isolated calls: a function run in a forked child with a time limit, its answer sent back over a
// pipe. Everything that may hang or crash whoever does it — dlopen of libcuda, libnvidia-ml or
// libcudnn and every call into them — runs only inside such a child, so a broken driver costs
// the doctor one child process, never itself.
#include <chrono>
#include <functional>
#include <string>

#include "common/error.hpp"

namespace cudoctor::host {

/// How an isolated child ended.
enum class IsolatedEnd {
    finished,  ///< the function returned and the child exited normally
    hung,      ///< still running at the time limit: killed (SIGKILL, with its process group)
    crashed,   ///< ended by a signal (SIGSEGV, SIGABRT, …) before it could finish
    exited,    ///< called exit() itself with some status before the function returned
};

/// "finished", "hung", "crashed", "exited".
const char* to_string(IsolatedEnd end);

/// What came back from an isolated child. `answer` holds everything the function wrote through
/// its writer before the end, also when it then hung or crashed (so the last progress line says
/// which call never returned).
struct IsolatedResult {
    IsolatedEnd end = IsolatedEnd::finished;
    int signal = 0;      ///< the signal that ended a crashed child
    int exit_code = 0;   ///< the status of an `exited` child
    std::string answer;  ///< what the function wrote, capped at 1 MiB
    std::string output;  ///< what the child printed on stdout/stderr (libraries do), capped at 64 KiB

    /// One line for the user: "hung: no answer within 2000 ms (killed)", "crashed with signal
    /// 11 (SIGSEGV, Segmentation fault)", "exited with status 3", or "finished".
    [[nodiscard]] std::string describe(std::chrono::milliseconds timeout) const;
};

/// Where an isolated function writes its answer; each write is sent at once (unbuffered), so a
/// crash right after a write loses nothing.
class IsolatedWriter {
  public:
    explicit IsolatedWriter(int fd) : m_fd(fd) {}
    /// Sends `text` to the parent. A parent that went away is ignored.
    void write(std::string_view text) const;
    /// Sends `text` and a newline.
    void line(std::string_view text) const;

  private:
    int m_fd;
};

/// Runs `fn` in a forked child of this process and waits at most `timeout` for it to end.
/// In the child, stdin is /dev/null, stdout and stderr are captured, the default action of
/// SIGSEGV / SIGBUS / SIGILL / SIGFPE / SIGABRT is restored (so a crash is seen as the crash it
/// is) and the child leaves with _exit(0) after `fn` returns (no atexit handlers, no flushing
/// of the parent's buffers). Errc::io only when the pipe or fork cannot be made; a hang, a
/// crash or an early exit are ordinary results. The parent must be single-threaded at the call
/// (fork copies only the calling thread).
Expected<IsolatedResult> run_isolated(const std::function<void(const IsolatedWriter&)>& fn, std::chrono::milliseconds timeout);

/// "SIGSEGV" for 11, "SIGABRT" for 6, … ("signal 42" for one without a name here).
std::string signal_name(int signal);

}  // namespace cudoctor::host
