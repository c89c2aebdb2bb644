#pragma once
// The types of `cudoctor plan`: what the user asked for (Request), the machine the plan is for
// (Target), and the answer (Recipe): the chosen versions with their reasons, the alternatives
// rejected and why, what stays as it is, and the ordered install steps with a check for each.
// Plain data; derive.hpp builds it, render.hpp prints it. A plan is never executed here.
#include <optional>
#include <string>
#include <vector>

#include "common/version.hpp"
#include "recipe/distro.hpp"

namespace cudoctor::recipe {

/// "torch==2.4" → {"torch", 2.4}. name is one of torch, tensorflow, jax.
/// One PEP 440 version clause: ">=2.3", "<2.6", "!=2.5.*", "~=0.4.30", "==2.4.1".
struct VersionClause {
    std::string op;       ///< "==", "!=", ">=", "<=", ">", "<", "~="
    Version version;      ///< as written (2.3 stays two parts)
    bool prefix = false;  ///< "==2.5.*" / "!=2.5.*"
    [[nodiscard]] bool allows(const Version& v) const;
    [[nodiscard]] std::string str() const;
};

struct FrameworkSpec {
    std::string name;
    Version version;                     ///< torch==2.4 (a release series, as before specifiers); empty otherwise
    std::vector<VersionClause> clauses;  ///< the other PEP 440 forms: torch>=2.3,<2.6 (all must hold)
    /// Whether a release of the KB's tables (a series like torch 2.4, or jax 0.4.30) has a version
    /// every clause allows: 2.4 qualifies for >=2.4.1 (2.4.1 is in it), not for <2.4.
    [[nodiscard]] bool admits(const Version& release) const;
    /// The clauses joined for pip: ">=2.3,<2.6"; "" when there are none.
    [[nodiscard]] std::string clause_text() const;
};

/// What the user asked for. Every field is optional: missing ones come from the machine.
struct Request {
    std::optional<FrameworkSpec> framework;
    std::optional<Version> cuda;     ///< --cuda 12.4 (or 12: any 12.x)
    std::optional<std::string> gpu;  ///< --gpu "RTX 4060 Ti" or "8.9"
    std::optional<std::string> os;   ///< --os ubuntu-22.04 | wsl-ubuntu-22.04 | debian-12
    bool need_nvcc = false;          ///< a system toolkit (compile CUDA code, build extensions)
    bool need_cudnn = false;         ///< a system cuDNN (C/C++ programs, OpenCV's dnn module)
    bool need_opencv = false;        ///< an OpenCV build with CUDA: nvcc and cuDNN
    bool offline = false;            ///< no network on the machine: runfiles and archives
    bool fresh = false;              ///< plan as for a clean machine: ignore what is installed
};

/// Something installed on the machine that a plan may keep.
struct InstalledToolkit {
    Version version;     ///< 12.4.131 as found
    std::string path;    ///< /usr/local/cuda-12.4
    std::string method;  ///< deb | runfile | …
};

struct InstalledCudnn {
    Version version;
    std::string cuda_major;  ///< "12" where known
    std::string location;    ///< system | toolkit | pip | conda
    std::string path;
};

struct InstalledFramework {
    std::string name;
    std::string version;  ///< "2.4.0+cu121"
    std::string cuda;     ///< "12.1"; "" for a CPU build
};

/// The machine the plan is for: this machine's snapshot, with --gpu / --os replacing its facts.
struct Target {
    std::string gpu_name;                        ///< "GeForce RTX 4060 Ti" ("" when only a capability was given)
    std::string compute_capability;              ///< "8.9"
    std::string architecture;                    ///< "Ada Lovelace"
    std::vector<std::string> gpu_architectures;  ///< of every GPU the driver must drive (--gpu: that one)
    bool gpu_visible = true;                     ///< the machine shows the GPU on its PCI bus (false: a VM without passthrough)
    Distro distro;                               ///< the OS the commands are for (id, version, CPU, WSL2, datacenter GPUs)
    std::string virtualization;                  ///< "vmware", "kvm", … ("" none seen)
    std::optional<Version> driver;               ///< the driver there now (Windows' under WSL2 when known)
    bool nouveau = false;                        ///< nouveau loaded or bound to the GPU
    std::string secure_boot;                     ///< "enabled" | "disabled" | "unsupported" | "unknown" | ""
    std::optional<int> gcc_default;              ///< major of /usr/bin/gcc (else the distribution's default)
    std::vector<int> gcc_installed;
    std::vector<InstalledToolkit> toolkits;
    std::vector<InstalledCudnn> cudnn;
    std::vector<InstalledFramework> frameworks;
    std::vector<std::string> notes;  ///< where a fact came from when not from this machine
};

/// One chosen version and why.
struct Choice {
    std::string layer;  ///< "framework" | "cuda" | "driver" | "gcc" | "cudnn"
    std::string value;  ///< "torch 2.4 (cu121)", "CUDA 12.1", "≥ 530.30.02"
    std::string reason;
};

/// An alternative that was not taken.
struct Rejected {
    std::string option;  ///< "cu118", "CUDA 13.0"
    std::string reason;  ///< "built with CUDA 11.8, which cannot target sm_120 (needs CUDA ≥ 12.8)"
    bool hard = true;    ///< false: it would work, another was preferred
};

/// A layer the plan leaves as it is, and why.
struct Kept {
    std::string layer;
    std::string what;
    std::string reason;
};

/// One install step: exact commands, and how to check it worked before going on.
struct Step {
    std::string layer;  ///< driver | gcc | toolkit | cudnn | framework
    std::string title;
    std::vector<std::string> notes;     ///< why, and what to watch for
    std::vector<std::string> commands;  ///< shell lines, in order ("# …" lines are comments)
    std::vector<std::string> checks;    ///< shell lines that must succeed before the next step
    bool reboot = false;                ///< the last command reboots; the rest continues after it
};

/// The answer when no working set exists: the reason and the nearest thing that would work.
struct Refusal {
    std::string reason;
    std::string nearest;  ///< "torch 2.7 (cu128)"; "" when nothing in the knowledge base fits
};

struct Recipe {
    Target target;
    std::optional<Refusal> refused;  ///< set: no steps, nothing chosen
    std::vector<Choice> chosen;
    std::vector<Rejected> rejected;
    std::vector<Kept> kept;
    std::vector<Kept> skipped;  ///< layers not needed at all (pip wheels bring their own cuDNN)
    std::vector<Step> steps;
    std::vector<std::string> warnings;

    // The chosen set, for tools and for projecting the machine after the plan.
    std::optional<Version> cuda;             ///< the CUDA of the wheel / toolkit: 12.1
    std::optional<Version> toolkit_release;  ///< the toolkit to install or keep: 12.1.1 (when one is needed)
    std::string toolkit_path;                ///< /usr/local/cuda-12.1
    std::string toolkit_method;              ///< deb | runfile (when installed by the plan)
    std::optional<Version> min_driver;       ///< the driver everything needs
    std::optional<Version> driver_after;     ///< the lowest driver the machine has after the plan
    std::optional<int> driver_branch;        ///< the branch a driver step installs
    std::optional<int> gcc;                  ///< gcc-N the toolkit uses (a gcc step when set)
    std::optional<Version> cudnn;            ///< the cuDNN (system or bundled) the set uses
    bool cudnn_system = false;               ///< a system cuDNN is installed or kept
    std::string cudnn_location;              ///< system (deb) | toolkit (tar) when cudnn_system
    std::string framework;                   ///< "torch"
    std::string framework_version;           ///< "2.4"
    std::string framework_variant;           ///< "cu121", "and-cuda", "cuda12"
    std::optional<Version> framework_cudnn;  ///< the cuDNN its wheels bring
};

}  // namespace cudoctor::recipe
