#include "watch/launched.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "common/text.hpp"

extern char** environ;

namespace cudoctor::watch {
namespace {

/// This process's environment with `extra` ("NAME=value") set over it.
std::vector<std::string> with_extra(const std::vector<std::string>& extra) {
    auto name_of = [](std::string_view entry) { return entry.substr(0, entry.find('=')); };
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view entry(*e);
        bool replaced = false;
        for (const auto& x : extra) replaced = replaced || name_of(x) == name_of(entry);
        if (!replaced) out.emplace_back(entry);
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

constexpr std::size_t kMaxLine = 64 * 1024;
constexpr std::size_t kMaxErrors = 200;

// Texts the CUDA runtime/driver, cuBLAS, cuDNN, NCCL and PyTorch put in their error messages.
constexpr std::string_view kCudaErrorMarks[] = {
    "CUDA error",
    "CUDA_ERROR_",
    "cudaError",
    "CUBLAS_STATUS_",
    "CUDNN_STATUS_",
    "illegal memory access",
    "device-side assert",
    "unspecified launch failure",
    "CUDA out of memory",
    "NCCL error",
    "ncclUnhandledCudaError",
    "misaligned address",
    "CUFFT_",
    "CURAND_STATUS_",
};

void write_all(int fd, std::string_view bytes) {
    while (fd >= 0 && !bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

}  // namespace

bool is_cuda_error_line(std::string_view line) {
    if (line.size() > kMaxLine) line = line.substr(0, kMaxLine);
    for (auto mark : kCudaErrorMarks)
        if (line.find(mark) != std::string_view::npos) {
            // "CUDA_ERROR_" in an enum dump or "cudaErrorNone"/"CUDA error: no error" is no error.
            if (line.find("cudaSuccess") != std::string_view::npos || line.find("CUDA error: no error") != std::string_view::npos)
                return false;
            return true;
        }
    return false;
}

Expected<LaunchedCommand> LaunchedCommand::start(const std::vector<std::string>& argv, const std::string& log_path, int echo_fd,
                                                 const std::vector<std::string>& extra_env) {
    if (argv.empty() || argv.front().empty()) return fail(Errc::usage, "no command given after --");
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return fail(Errc::io, std::string("cannot make a pipe: ") + std::strerror(errno));
    const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return fail(Errc::io, "cannot create " + log_path + ": " + std::strerror(errno));
    }
    std::vector<char*> args;
    args.reserve(argv.size());
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // The child's environment is made here, before fork: setenv is not safe in a forked child.
    const auto env_strings = with_extra(extra_env);
    std::vector<char*> env;
    env.reserve(env_strings.size() + 1);
    for (const auto& e : env_strings) env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        ::close(log);
        return fail(Errc::io, std::string("cannot fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::dup2(fds[1], 1);
        ::dup2(fds[1], 2);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::signal(SIGPIPE, SIG_DFL);
        ::execvpe(args[0], args.data(), env.data());
        const std::string why = std::string("cudoctor watch: cannot run ") + args[0] + ": " + std::strerror(errno) + "\n";
        write_all(2, why);
        ::_exit(127);
    }
    ::close(fds[1]);
    LaunchedCommand c;
    c.m_pid = pid;
    c.m_out = fds[0];
    c.m_log = log;
    c.m_echo = echo_fd;
    return c;
}

LaunchedCommand::LaunchedCommand(LaunchedCommand&& o) noexcept
    : m_pid(std::exchange(o.m_pid, -1)),
      m_out(std::exchange(o.m_out, -1)),
      m_log(std::exchange(o.m_log, -1)),
      m_echo(o.m_echo),
      m_partial(std::move(o.m_partial)),
      m_status(o.m_status),
      m_errors(o.m_errors) {}

LaunchedCommand::~LaunchedCommand() {
    if (m_pid > 0 && !m_status) {
        ::kill(m_pid, SIGKILL);
        reap(true);
    }
    for (int fd : {m_out, m_log})
        if (fd >= 0) ::close(fd);
}

std::vector<CudaErrorLine> LaunchedCommand::take_lines(std::string_view bytes) {
    std::vector<CudaErrorLine> found;
    m_partial.append(bytes);
    std::size_t start = 0;
    for (std::size_t nl = m_partial.find('\n'); nl != std::string::npos; nl = m_partial.find('\n', start)) {
        std::string_view line(m_partial.data() + start, nl - start);
        if (m_errors < kMaxErrors && is_cuda_error_line(line)) {
            ++m_errors;
            found.push_back({std::chrono::steady_clock::now(), text::printable(text::trim(line), 300)});
        }
        start = nl + 1;
    }
    m_partial.erase(0, start);
    if (m_partial.size() > kMaxLine) m_partial.erase(0, m_partial.size() - kMaxLine);  // a line with no end: keep its tail
    return found;
}

std::vector<CudaErrorLine> LaunchedCommand::pump(std::chrono::steady_clock::time_point deadline) {
    std::vector<CudaErrorLine> found;
    char buffer[16384];
    while (m_out >= 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        pollfd p{m_out, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::max<long long>(0, left)));
        if (ready < 0) break;  // a signal: let the caller look at its flags
        if (ready == 0) break;
        const ssize_t n = ::read(m_out, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) break;
        if (n <= 0) {  // the command closed its output
            ::close(m_out);
            m_out = -1;
            if (!m_partial.empty()) {
                auto last = take_lines("\n");
                found.insert(found.end(), last.begin(), last.end());
            }
            break;
        }
        const std::string_view bytes(buffer, static_cast<std::size_t>(n));
        write_all(m_log, bytes);
        write_all(m_echo, bytes);
        auto lines = take_lines(bytes);
        found.insert(found.end(), lines.begin(), lines.end());
        if (std::chrono::steady_clock::now() >= deadline) break;
    }
    if (m_out < 0 && !m_status) {
        // Output ended: the command is exiting (or closed its streams); wait until the deadline.
        while (!m_status && std::chrono::steady_clock::now() < deadline) {
            reap(false);
            if (!m_status) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    reap(false);
    return found;
}

bool LaunchedCommand::finished() {
    reap(false);
    return m_status.has_value() && m_out < 0;
}

void LaunchedCommand::reap(bool block) {
    if (m_pid <= 0 || m_status) return;
    int status = 0;
    pid_t r;
    do r = ::waitpid(m_pid, &status, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r != m_pid) return;
    m_status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

void LaunchedCommand::stop(std::chrono::milliseconds grace) {
    reap(false);
    if (m_status || m_pid <= 0) return;
    ::kill(m_pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (!m_status && std::chrono::steady_clock::now() < deadline)
        pump(std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
    if (!m_status) {
        ::kill(m_pid, SIGKILL);
        reap(true);
    }
}

}  // namespace cudoctor::watch
