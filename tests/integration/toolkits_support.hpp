#pragma once
// Helpers for the toolkit command tests: the fixture root, and real shells run on cudoctor's output.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "integration/run_cudoctor.hpp"

namespace cudoctor::test {

inline const std::string kToolkitsRoot = std::string(CUDOCTOR_ROOTS_DIR) + "/toolkits-repo-driver";

/// This machine's own toolkit (CUDA 13.0), for the tests that compile under a module or pin it.
inline const std::string kRealToolkit = "/usr/local/cuda-13.0";

/// The calling shell's environment for `use`: a PATH with 11.8 first and the default link,
/// LD_LIBRARY_PATH naming 11.8, CUDA_HOME 11.8 — as the fixture's dev user has it.
inline std::vector<std::string> shell_environment() {
    return {"PATH=/usr/local/cuda-11.8/bin:/usr/local/cuda/bin:/usr/bin:/bin", "LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64:/opt/other/lib",
            "CUDA_HOME=/usr/local/cuda-11.8", "HOME=/tmp", "LANG=C.UTF-8"};
}

/// Runs `shell -c script` (a real bash, zsh or fish) with `env`.
inline RunResult run_shell(const std::string& shell, const std::string& script, const std::vector<std::string>& env) {
    return run_program(shell, {"-c", script}, env, std::chrono::seconds(30));
}

inline bool have(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

}  // namespace cudoctor::test
