// Host::run: child processes with an argv vector, closed stdin, captured output and a hard time
// limit. A child that outlives its limit is killed with its whole process group, so a hanging
// `nvcc --version` (or anything it started) cannot hang the doctor.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "host/host.hpp"

namespace cudoctor::host {
namespace {

constexpr std::size_t kProcessOutputCap = 1u << 20;

void drain(int fd, std::string& sink, bool& open) {
    char buf[8192];
    const auto n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
        if (sink.size() < kProcessOutputCap) sink.append(buf, std::min(static_cast<std::size_t>(n), kProcessOutputCap - sink.size()));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        open = false;
    }
}

}  // namespace

Expected<ProcessResult> Host::run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) const {
    if (argv.empty()) return fail(Errc::usage, "no command to run");
    // A machine image is inert: nothing inside it is ever executed (it may be anyone's, and we
    // may be root). Callers say "not run: inside a machine image" before they get here.
    if (is_rooted()) return fail(Errc::permission, argv[0] + ": " + std::string(kNotRunInImage));
    auto program = resolve(argv[0]);
    if (!program) return Unexpected<Error>(program.error());
    const std::string exe = host_path(*program);
    if (::access(exe.c_str(), X_OK) != 0) return fail(Errc::permission, argv[0] + ": not executable");

    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) return fail(Errc::io, std::string("pipe: ") + std::strerror(errno));
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        ::close(out_pipe[0]);
        ::close(out_pipe[1]);
        return fail(Errc::io, std::string("pipe: ") + std::strerror(errno));
    }
    std::vector<char*> args;
    args.reserve(argv.size());
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<std::string> env_strings;
    for (const auto& [k, v] : m_env) env_strings.push_back(k + "=" + v);
    std::vector<char*> envp;
    envp.reserve(env_strings.size());
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid < 0) return fail(Errc::io, std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::setpgid(0, 0);
        const int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, 0);
        ::dup2(out_pipe[1], 1);
        ::dup2(err_pipe[1], 2);
        ::execve(exe.c_str(), args.data(), envp.data());
        ::_exit(127);
    }
    ::setpgid(pid, pid);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);

    ProcessResult result;
    bool out_open = true, err_open = true, timed_out = false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out_open || err_open) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timed_out = true;
            break;
        }
        pollfd fds[2] = {{out_open ? out_pipe[0] : -1, POLLIN, 0}, {err_open ? err_pipe[0] : -1, POLLIN, 0}};
        const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
        if (ready < 0 && errno != EINTR) break;
        if (fds[0].revents) drain(out_pipe[0], result.out, out_open);
        if (fds[1].revents) drain(err_pipe[0], result.err, err_open);
    }
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);

    int status = 0;
    if (!timed_out) {
        // Output closed; give the child the rest of its time to exit.
        while (true) {
            const pid_t w = ::waitpid(pid, &status, WNOHANG);
            if (w == pid) break;
            if (w < 0 && errno != EINTR) break;
            if (std::chrono::steady_clock::now() >= deadline) {
                timed_out = true;
                break;
            }
            ::usleep(1000);
        }
    }
    if (timed_out) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        return fail(Errc::timeout, argv[0] + ": no answer within " + std::to_string(timeout.count()) + " ms (killed)");
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

}  // namespace cudoctor::host
