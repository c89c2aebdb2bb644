#pragma once
// `cudoctor opencv cmake`: the CMake command that builds OpenCV with CUDA for this machine, and
// before it what is missing (with the install command). Built from the Snapshot (toolkits,
// GPUs, cuDNN, Pythons, gcc) and a few more facts read through the Host (memory, cores, numpy,
// dpkg). Nothing is run and nothing is changed: the result is text to read and paste.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "gpucode/gpus.hpp"
#include "host/host.hpp"
#include "kb/kb.hpp"
#include "opencv/machine.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor::opencv {

struct CmakeRequest {
    std::string src = "opencv";            ///< the OpenCV source folder (--src)
    std::optional<std::string> contrib;    ///< the opencv_contrib folder (--contrib)
    std::vector<gpucode::TargetGpu> gpus;  ///< --gpu; empty: this machine's GPUs
    bool portable = false;                 ///< --portable: PTX of the lowest arch too
    std::optional<std::string> python;     ///< --python interpreter
    std::optional<std::string> cuda;       ///< --cuda VERSION or toolkit folder
    std::string install_prefix = "/usr/local";
};

/// Something to install before configuring.
struct Missing {
    std::string what;      ///< "cuDNN headers for CUDA 12"
    std::string why;       ///< "WITH_CUDNN / OPENCV_DNN_CUDA: without it the DNN CUDA backend is skipped"
    std::string package;   ///< Debian/Ubuntu package ("libcudnn9-dev-cuda-12"); "" when not a package
    std::string command;   ///< install command when not a plain apt package
    bool required = true;  ///< false: only a feature is lost (video I/O, GUI)
};

struct Define {
    std::string name;
    std::string value;
    std::string why;
};

struct CmakePlan {
    std::vector<gpucode::TargetGpu> gpus;
    std::string toolkit_version;
    std::string toolkit_path;
    std::string cudnn_version;  ///< "" when none was found
    std::string python;
    std::vector<Missing> missing;
    std::vector<Define> defines;
    std::string src;
    std::string build_dir;
    unsigned jobs = 1;
    std::string jobs_why;
    std::vector<std::string> notes;  ///< warnings that change nothing in the command

    /// `sudo apt-get install -y …` for the missing packages (required and not); "" when none.
    std::string apt_command() const;
    /// The configure command, one -D per line (shell-quoted, `\` continued).
    std::string configure_command() const;
    std::string build_command() const;
    std::string install_command() const;
    bool missing_required() const;
};

/// Builds the plan. Errc::usage when no GPU is known (none found and no --gpu), or --cuda names
/// no installed toolkit; Errc::not_found when the machine has no CUDA toolkit with nvcc.
Expected<CmakePlan> plan_cmake(const host::Host& host, const snapshot::Snapshot& snap, const kb::Kb& kb, const CmakeRequest& request);

void render_text(const CmakePlan& plan, std::ostream& out);
/// The plan in one line (-q): its first line and what is missing first, "…; 2 missing first (1
/// required)" or "…; nothing missing".
std::string verdict_line(const CmakePlan& plan);
nlohmann::json to_json(const CmakePlan& plan);

}  // namespace cudoctor::opencv
