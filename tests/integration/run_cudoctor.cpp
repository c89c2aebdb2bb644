#include "integration/run_cudoctor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace cudoctor::test {
namespace {

/// A pipe whose ends close themselves.
struct Pipe {
    int read_end = -1;
    int write_end = -1;
    Pipe() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) == 0) {
            read_end = fds[0];
            write_end = fds[1];
        }
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    ~Pipe() {
        close_read();
        close_write();
    }
    void close_read() {
        if (read_end >= 0) ::close(read_end);
        read_end = -1;
    }
    void close_write() {
        if (write_end >= 0) ::close(write_end);
        write_end = -1;
    }
    [[nodiscard]] bool ok() const { return read_end >= 0 && write_end >= 0; }
};

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

}  // namespace

std::string RunResult::describe() const {
    if (timed_out) return "timed out (killed)";
    if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
    if (exit_code < 0) return "did not start: " + err;
    return "exit " + std::to_string(exit_code);
}

RunResult run_program(const std::string& binary, const std::vector<std::string>& args, const std::vector<std::string>& environment,
                      std::chrono::milliseconds timeout) {
    RunResult result;
    Pipe out_pipe;
    Pipe err_pipe;
    if (!out_pipe.ok() || !err_pipe.ok()) {
        result.err = std::string("pipe: ") + std::strerror(errno);
        return result;
    }

    std::vector<std::string> argv_strings{binary};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<std::string> env_strings = environment;
    auto argv = c_strings(argv_strings);
    auto envp = c_strings(env_strings);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe.write_end, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_pipe.write_end, STDERR_FILENO);
    pid_t pid = -1;
    const int spawn_error = ::posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    out_pipe.close_write();
    err_pipe.close_write();
    if (spawn_error != 0) {
        result.err = binary + ": " + std::strerror(spawn_error);
        return result;
    }

    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::array<pollfd, 2> fds{pollfd{out_pipe.read_end, POLLIN, 0}, pollfd{err_pipe.read_end, POLLIN, 0}};
    std::array<std::string*, 2> sinks{&result.out, &result.err};
    int open_streams = 2;
    while (open_streams > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()));
        if (ready < 0) {
            if (errno == EINTR) continue;
            ::kill(pid, SIGKILL);
            result.err += std::string("\npoll: ") + std::strerror(errno);
            break;
        }
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
            char buffer[65536];
            const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                sinks[i]->append(buffer, static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                fds[i].fd = -1;  // end of stream; the Pipe closes it
                --open_streams;
            }
        }
    }

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status) && !result.timed_out) {
        result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status) && !result.timed_out) {
        result.signal = WTERMSIG(status);
    }
    return result;
}

std::vector<std::string> outside_environment() {
    return {
        "PATH=/usr/local/cuda-13.0/bin:/opt/real-machine/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME=/opt/real-machine/home",
        "CUDA_HOME=/usr/local/cuda-13.0",
        "CUDA_PATH=/usr/local/cuda-13.0",
        "LD_LIBRARY_PATH=/usr/local/cuda-13.0/lib64:/opt/real-machine/lib",
        "CONDA_PREFIX=/opt/real-machine/conda",
        "VIRTUAL_ENV=/opt/real-machine/venv",
        "CUDA_VISIBLE_DEVICES=real-machine-gpu",
        "LANG=C.UTF-8",
        "NO_COLOR=1",
        "TERM=dumb",
    };
}

std::vector<std::string> outside_markers() { return {"cuda-13.0", "real-machine"}; }

RunResult run_cudoctor(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
    return run_program(CUDOCTOR_BINARY, args, outside_environment(), timeout);
}

}  // namespace cudoctor::test
