// run_isolated: fork, run the function in the child, read its answer and its printed output
// over two pipes, and end it at the time limit. The child gets its own process group so that
// anything it started goes with it.
#include "host/isolated.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cudoctor::host {
namespace {

constexpr std::size_t kAnswerCap = 1u << 20;
constexpr std::size_t kChildOutputCap = 64u << 10;

/// Reads what is there without blocking; false once the write end is closed (or on an error).
bool drain(int fd, std::string& sink, std::size_t cap) {
    char buf[8192];
    while (true) {
        const auto n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            if (sink.size() < cap) sink.append(buf, std::min(static_cast<std::size_t>(n), cap - sink.size()));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return n < 0 && errno == EAGAIN;
    }
}

[[noreturn]] void child_main(const std::function<void(const IsolatedWriter&)>& fn, int answer_fd, int output_fd) {
    ::setpgid(0, 0);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(output_fd, 1);
    ::dup2(output_fd, 2);
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGPIPE}) {
        struct sigaction sa {};
        sa.sa_handler = sig == SIGPIPE ? SIG_IGN : SIG_DFL;
        ::sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
    }
    try {
        fn(IsolatedWriter(answer_fd));
    } catch (...) {
        ::_exit(70);  // an exception is a bug in the caller's function; the parent reports "exited"
    }
    ::_exit(0);
}

}  // namespace

const char* to_string(IsolatedEnd end) {
    switch (end) {
        case IsolatedEnd::finished: return "finished";
        case IsolatedEnd::hung: return "hung";
        case IsolatedEnd::crashed: return "crashed";
        case IsolatedEnd::exited: return "exited";
    }
    return "?";
}

std::string signal_name(int signal) {
    if (const char* abbrev = ::sigabbrev_np(signal)) return std::string("SIG") + abbrev;
    return "signal " + std::to_string(signal);
}

std::string IsolatedResult::describe(std::chrono::milliseconds timeout) const {
    switch (end) {
        case IsolatedEnd::finished: return "finished";
        case IsolatedEnd::hung: return "hung: no answer within " + std::to_string(timeout.count()) + " ms (killed)";
        case IsolatedEnd::crashed: {
            const char* what = ::sigdescr_np(signal);
            return "crashed with signal " + std::to_string(signal) + " (" + signal_name(signal) + (what ? std::string(", ") + what : "") +
                   ")";
        }
        case IsolatedEnd::exited: return "exited with status " + std::to_string(exit_code);
    }
    return "?";
}

void IsolatedWriter::write(std::string_view text) const {
    while (!text.empty()) {
        const auto n = ::write(m_fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        text.remove_prefix(static_cast<std::size_t>(n));
    }
}

void IsolatedWriter::line(std::string_view text) const { write(std::string(text) + "\n"); }

Expected<IsolatedResult> run_isolated(const std::function<void(const IsolatedWriter&)>& fn, std::chrono::milliseconds timeout) {
    int answer[2], output[2];
    if (::pipe2(answer, O_CLOEXEC) != 0) return fail(Errc::io, std::string("pipe: ") + std::strerror(errno));
    if (::pipe2(output, O_CLOEXEC) != 0) {
        ::close(answer[0]);
        ::close(answer[1]);
        return fail(Errc::io, std::string("pipe: ") + std::strerror(errno));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        for (int fd : {answer[0], answer[1], output[0], output[1]}) ::close(fd);
        return fail(Errc::io, std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::close(answer[0]);
        ::close(output[0]);
        child_main(fn, answer[1], output[1]);
    }
    ::setpgid(pid, pid);
    ::close(answer[1]);
    ::close(output[1]);
    ::fcntl(answer[0], F_SETFL, O_NONBLOCK);
    ::fcntl(output[0], F_SETFL, O_NONBLOCK);

    IsolatedResult result;
    bool answer_open = true, output_open = true, reaped = false;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    // Poll in short slices and reap as soon as the child is gone: something it started (a
    // driver daemon) may hold the pipes open long after it exited.
    while (!reaped) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        pollfd fds[2] = {{answer_open ? answer[0] : -1, POLLIN, 0}, {output_open ? output[0] : -1, POLLIN, 0}};
        const int slice = static_cast<int>(std::min<long>(left.count(), 20));
        if (::poll(fds, 2, (answer_open || output_open) ? slice : 0) < 0 && errno != EINTR) break;
        if (answer_open && fds[0].revents) answer_open = drain(answer[0], result.answer, kAnswerCap);
        if (output_open && fds[1].revents) output_open = drain(output[0], result.output, kChildOutputCap);
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) reaped = true;
        else if (w < 0 && errno != EINTR) break;
        else if (!answer_open && !output_open) ::usleep(2000);
    }
    if (reaped) {  // whatever the child wrote just before it ended
        if (answer_open) drain(answer[0], result.answer, kAnswerCap);
        if (output_open) drain(output[0], result.output, kChildOutputCap);
    }
    ::close(answer[0]);
    ::close(output[0]);
    if (!reaped) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        result.end = IsolatedEnd::hung;
        return result;
    }
    ::kill(-pid, SIGKILL);  // a grandchild left behind by the library
    if (WIFSIGNALED(status)) {
        result.end = IsolatedEnd::crashed;
        result.signal = WTERMSIG(status);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        result.end = IsolatedEnd::exited;
        result.exit_code = WEXITSTATUS(status);
    }
    return result;
}

}  // namespace cudoctor::host
