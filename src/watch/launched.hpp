#pragma once
// The command a watch launched (`cudoctor watch -- python train.py`): its output is passed
// through (to `echo`), kept in DIR/command.log, and read line by line for CUDA error text
// ("CUDA error: an illegal memory access was encountered", "CUBLAS_STATUS_EXECUTION_FAILED",
// "device-side assert triggered", …); its exit status ends the watch.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace cudoctor::watch {

/// A CUDA error line seen in the output.
struct CudaErrorLine {
    std::chrono::steady_clock::time_point when;
    std::string text;  ///< printable, at most 300 bytes
};

/// True when `line` carries a CUDA (or cuBLAS, cuDNN, NCCL) error message. Pure.
bool is_cuda_error_line(std::string_view line);

class LaunchedCommand {
  public:
    /// Starts argv (argv[0] looked up in PATH) with stdin inherited and stdout+stderr into one
    /// pipe; output is appended to `log_path`. Errc::usage for an empty argv, Errc::io when the
    /// pipe, log or fork fails. A program that cannot be executed ends at once with status 127
    /// and says why in its output. `extra_env` ("NAME=value" each) is added to the command's
    /// environment, over a variable of ours with the same name; ours is not changed.
    [[nodiscard]] static Expected<LaunchedCommand> start(const std::vector<std::string>& argv, const std::string& log_path, int echo_fd,
                                                         const std::vector<std::string>& extra_env = {});
    LaunchedCommand(LaunchedCommand&&) noexcept;
    LaunchedCommand& operator=(LaunchedCommand&&) = delete;
    ~LaunchedCommand();

    /// Moves output until `deadline` or the end of the output (whichever first), returns early
    /// when a signal interrupts the wait. Returns the CUDA error lines seen meanwhile.
    std::vector<CudaErrorLine> pump(std::chrono::steady_clock::time_point deadline);
    /// True once the command exited and its output ended.
    bool finished();
    /// SIGTERM, then SIGKILL after `grace`; output is moved meanwhile.
    void stop(std::chrono::milliseconds grace);

    pid_t pid() const { return m_pid; }
    /// The exit status, or -N when ended by signal N; nullopt while running.
    std::optional<int> status() const { return m_status; }

  private:
    LaunchedCommand() = default;
    void reap(bool block);
    std::vector<CudaErrorLine> take_lines(std::string_view bytes);

    pid_t m_pid = -1;
    int m_out = -1, m_log = -1, m_echo = -1;
    std::string m_partial;
    std::optional<int> m_status;
    std::size_t m_errors = 0;
};

}  // namespace cudoctor::watch
