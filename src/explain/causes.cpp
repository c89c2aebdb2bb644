#include "explain/causes.hpp"

#include <algorithm>

namespace cudoctor::explain {

namespace {

// Driver-level failures every runtime symptom can follow from.
#define DRIVER_ROOTS "wsl", "driver-not-loaded", "driver-library-mismatch", "driver-too-old", "missing-libcuda"

std::vector<CauseInfo> make_causes() {
    // Not clang-formatted: one row per cause, its fields on the row as the table reads.
    // clang-format off
    std::vector<CauseInfo> c = {
        {"runfile-corrupt", 10, "The installer or archive is truncated or not the file it should be",
         "The archive's own check failed: the compressed data ends early or its checksum differs. The "
         "download was cut short, the disk filled up while saving it, or what was saved is an HTML page "
         "(a login or error page) instead of the installer.",
         {"Check free space where the file and /tmp live: df -h . /tmp",
          "Download it again and compare its checksum with the one NVIDIA publishes (sha256sum FILE)",
          "Check it before running: cudoctor verify-installer FILE"},
         {}},
        {"runfile-installer-refused", 12, "The runfile installer refused to install",
         "NVIDIA's .run installers check the machine before they start and stop when nouveau holds the GPU, "
         "an X server is running, an NVIDIA kernel module or a distribution's driver packages are already "
         "installed, or there is no C compiler or no kernel headers to build the driver's module with.",
         {"Read the installer's reason: /var/log/nvidia-installer.log (driver) or /var/log/cuda-installer.log (toolkit)",
          "Nouveau in use: blacklist it (cudoctor plan prints the file), rebuild the initramfs and reboot",
          "An X server running: stop the display manager (sudo systemctl isolate multi-user.target) and run the installer from a text console",
          // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one item, on two lines
          "A driver already there: keep one way of installing it (the distribution's packages or the runfile, not both); "
          "to add only the toolkit, run the CUDA runfile with --toolkit",
          "No compiler or headers: install gcc, make and the headers of the running kernel"},
         {}},
        {"apt-repo-error", 14, "apt cannot use NVIDIA's package repository",
         "apt refuses or cannot find NVIDIA's repository (CUDA: developer.download.nvidia.com; the container "
         "toolkit: nvidia.github.io): its signing key is missing or old (NVIDIA replaced the CUDA key 7fa2af80 "
         "with 3bf863cc in April 2022), the same repository is listed twice with different keyrings, the "
         "repository is for another release, or it was never added, so its packages are unknown.",
         {"Add the repository the way NVIDIA's guide does for this release (the cuda-keyring package for CUDA), and drop the old 7fa2af80 key",
          "List each NVIDIA repository once: grep -rn nvidia /etc/apt/sources.list /etc/apt/sources.list.d/",
          "Check that its path names this release (ubuntu2204, debian12; wsl-ubuntu on WSL2)"},
         {}},
        {"container-gpu-unavailable", 16, "The container runtime gives the container no GPU",
         "A container reaches the GPU only through the NVIDIA Container Toolkit: it must be installed and "
         "registered with the runtime, the container started with the GPUs requested (--gpus all; in compose "
         "or Kubernetes, a device request), and the host driver new enough for the image's CUDA (the "
         "'cuda>=X' requirement).",
         {"Install the NVIDIA Container Toolkit and register it: sudo nvidia-ctk runtime configure --runtime=docker, then restart docker",
          "Start the container with its GPUs: docker run --gpus all …",
          "A 'cuda>=X' requirement: update the host driver, or use an image of an older CUDA",
          "'Failed to initialize NVML: Unknown Error' inside a running container: restart the container"},
         {"driver-not-loaded", "driver-library-mismatch"}},
        {"dkms-build-failed", 22, "The nvidia kernel module failed to build (DKMS)",
         "DKMS builds the nvidia module for each installed kernel. After a kernel update, without that "
         "kernel's headers, with a compiler other than the kernel's, or with a kernel newer than the driver "
         "branch supports, the build fails and the kernel boots without the driver.",
         {"Read the build's own error: /var/lib/dkms/nvidia/<version>/build/make.log",
          "Install the headers of the running kernel and rebuild: sudo dkms autoinstall",
          "A kernel newer than the driver branch supports: install a newer driver branch, or boot the previous kernel"},
         {}},
        {"apt-conflict", 15, "apt cannot install the CUDA / driver packages: unmet dependencies or held packages",
         "The packages asked for depend on versions apt cannot install together: another driver branch "
         "or CUDA repository is already installed or pinned, packages are held, or the CUDA repository "
         "does not match this distribution release.",
         {"See what is held: apt-mark showhold",
          "Repair half-installed packages first: sudo apt-get -f install",
          "Install the exact versions apt names together, or remove the conflicting branch (apt list --installed '*nvidia*')"},
         // dpkg leaves the packages that depend on nvidia-dkms unconfigured when its module fails
         // to build: "dependency problems prevent configuration" then follows from that failure.
         {"dkms-build-failed"}},
        {"wsl", 20, "WSL2: the GPU driver lives in Windows, its Linux libraries in /usr/lib/wsl/lib",
         "Under WSL2 the NVIDIA driver is the Windows one; Linux programs reach it through the libraries "
         "Windows places in /usr/lib/wsl/lib. Installing a Linux driver inside WSL, a broken libcuda "
         "link there, or a loader path without /usr/lib/wsl/lib breaks CUDA.",
         {"Never install a Linux NVIDIA driver inside WSL2 (no cuda-drivers, no nvidia-driver-*); update the Windows driver instead",
          "Make sure the loader sees /usr/lib/wsl/lib: ldconfig -p | grep libcuda",
          "Repair the libcuda links (from an elevated Windows prompt, in C:\\Windows\\System32\\lxss\\lib) or ignore the ldconfig warning if CUDA works"},
         {}},
        {"driver-not-loaded", 25, "No NVIDIA kernel driver is running",
         "Nothing can reach the GPU because the nvidia kernel module is not loaded: it is not installed, "
         "was not built for the running kernel (DKMS), is refused by Secure Boot, or nouveau holds the GPU.",
         {"Install the driver for this GPU, then reboot", "Check the module: lsmod | grep nvidia; sudo modprobe nvidia"},
         // A driver upgraded under a loaded module: the old module then fails too (its firmware
         // or its device files are gone), and the version mismatch is the root.
         {"wsl", "driver-library-mismatch"}},
        {"nvidia-smi-missing", 26, "nvidia-smi is missing or cannot reach the driver",
         "nvidia-smi comes with the driver's user-space packages. 'command not found' means they are not "
         "installed here (in a container: the runtime did not add them); 'couldn't communicate with the "
         "NVIDIA driver' means they are, but the nvidia kernel module is not loaded.",
         {"Check the module: lsmod | grep nvidia, and why it did not load: sudo dmesg | grep -i nvidia",
          "Install the driver for this GPU (it brings nvidia-smi); in a container, start it with --gpus all",
          "After a kernel update the module must be built for the new kernel: dkms status"},
         {"dkms-build-failed", "driver-not-loaded", "container-gpu-unavailable", "wsl"}},
        {"driver-library-mismatch", 30, "The loaded kernel driver and its user-space libraries are different versions",
         "The driver packages were upgraded (often by unattended-upgrades) but the old kernel module "
         "is still loaded. The libraries (libnvidia-ml, libcuda) and the module must be the same version.",
         {"Reboot (or unload and reload the nvidia modules when nothing uses the GPU)",
          "Keep unattended upgrades away from the driver: sudo apt-mark hold the driver packages"},
         {"apt-conflict"}},
        {"driver-too-old", 35, "The NVIDIA driver is too old for the CUDA runtime the program uses",
         "Every CUDA runtime needs a minimum driver. The program (or its framework wheel) brings a newer "
         "CUDA runtime than this driver supports.",
         {"Install a newer driver, or use a build of the program for an older CUDA (e.g. another PyTorch wheel)"},
         {"wsl"}},
        {"missing-libcuda", 40, "libcuda.so (the driver's CUDA library) cannot be found",
         "libcuda.so comes with the driver, not with the toolkit. It is absent when no driver is installed "
         "(containers without --gpus, CPU machines), and under WSL2 it lives in /usr/lib/wsl/lib.",
         {"Install the driver (or run the container with --gpus all)", "Make its folder visible to the loader"},
         {"wsl", "driver-not-loaded"}},
        {"gcc-too-new-for-toolkit", 50, "nvcc refuses this host compiler version",
         "Each CUDA release checks the gcc/clang version in crt/host_config.h and stops on newer ones.",
         {"Build with an older gcc that this CUDA accepts (NVCC_PREPEND_FLAGS='-ccbin g++-N'), or use a newer CUDA toolkit"},
         {}},
        {"build-oom-killed", 52, "The build ran out of memory and the kernel killed the compiler",
         "Compiling CUDA and large C++ templates takes 1-4 GB per compiler (cicc, cc1plus); make -j or ninja "
         "start one per core, and when memory runs out the kernel's OOM killer ends one ('Killed', signal 9).",
         {"Build with fewer jobs: MAX_JOBS=N for PyTorch extensions (flash-attention, apex), make -jN or ninja -jN, with N about the free GiB / 3 for CUDA code (what cudoctor opencv cmake computes)",
          "Confirm it was the OOM killer: sudo dmesg | grep -i 'killed process'",
          "Add swap, or build on a machine with more memory"},
         {}},
        {"sudo-path-lost", 54, "The command ran under sudo, which does not search your PATH",
         "sudo replaces PATH with the secure_path of /etc/sudoers (on Ubuntu /usr/local/sbin:/usr/local/bin:/usr/sbin:"
         "/usr/bin:/sbin:/bin:/snap/bin), so nvcc in /usr/local/cuda/bin is not found under sudo even when it is on your "
         "own PATH. Exporting PATH in your shell or ~/.bashrc cannot change that; sudo -E does not keep PATH either.",
         {"Name nvcc by its full path: sudo /usr/local/cuda/bin/nvcc …",
          "Or pass your PATH through for one command: sudo env \"PATH=$PATH\" make …",
          "Or build without sudo (most builds need no root; install the result with sudo afterwards)"},
         {}},
        {"nvcc-not-found", 55, "nvcc (the CUDA compiler) is not found",
         "Building CUDA code needs a full toolkit with nvcc; the CUDA in pip/conda runtime packages has none. "
         "PyTorch extensions look for it through CUDA_HOME, then PATH.",
         {"Install a CUDA toolkit whose major.minor matches the framework's CUDA", "Point CUDA_HOME at it and put its bin/ on PATH"},
         {"sudo-path-lost"}},
        {"extension-build-cuda-mismatch", 60, "The extension is built with a different CUDA than PyTorch was",
         "torch.utils.cpp_extension compares the CUDA of the nvcc it found (CUDA_HOME) with the CUDA PyTorch "
         "was built with, and refuses a different major version.",
         {"Point CUDA_HOME at a toolkit of PyTorch's CUDA version, or install the PyTorch build for the CUDA you have"},
         {}},
        {"missing-cudart", 70, "The CUDA runtime library the program was built for is not found",
         "libcudart.so.N is versioned by CUDA major: a program built for CUDA 11 needs libcudart.so.11.0 "
         "and cannot use CUDA 12's. Either that CUDA is not installed or the loader does not look where it is.",
         {"Install that CUDA runtime (a toolkit, or the pip wheel nvidia-cuda-runtime-cuXX)", "Make its folder visible to the loader"},
         {DRIVER_ROOTS}},
        {"missing-cudnn", 72, "cuDNN (the major version the program needs) is not found",
         "libcudnn.so.N is versioned by cuDNN major: a program built for cuDNN 8 cannot load cuDNN 9. The "
         "library is missing, or installed where the dynamic loader does not look.",
         {"Install that cuDNN major for this CUDA", "Make its folder visible to the loader"},
         {DRIVER_ROOTS, "missing-cudart"}},
        {"missing-other-lib", 74, "A CUDA library (cuBLAS, NVRTC, cuFFT, TensorRT, NCCL…) is not found",
         "The program needs a CUDA library of a given major version that the loader cannot find.",
         {"Install the library for that CUDA major (toolkit or pip wheel nvidia-*-cuXX)", "Make its folder visible to the loader"},
         {DRIVER_ROOTS, "missing-cudart"}},
        {"opencv-cuda", 80, "OpenCV has no usable CUDA support",
         "The OpenCV in use was built without CUDA (every pip opencv-python wheel is), for other GPU "
         "architectures, or its CMake configure did not find cuDNN.",
         {"Build OpenCV with -DWITH_CUDA=ON -DWITH_CUDNN=ON -DOPENCV_DNN_CUDA=ON and this GPU's CUDA_ARCH_BIN",
          "Uninstall pip's opencv-python* so Python imports the CUDA build"},
         {DRIVER_ROOTS, "missing-cudnn", "missing-cudart"}},
        {"torch-cuda-unavailable", 85, "The framework runs without CUDA",
         "The framework cannot use the GPU: it is a CPU-only build, or CUDA could not start underneath it.",
         {"Install a CUDA build of the framework that this driver supports"},
         {DRIVER_ROOTS, "missing-cudart", "missing-cudnn", "missing-other-lib"}},
        {"no-kernel-image", 90, "The binary has no GPU code for this GPU's architecture",
         "CUDA binaries carry machine code (SASS) for a list of architectures, plus optionally PTX that "
         "the driver can compile for newer ones. This GPU's architecture is in neither.",
         {"Use a build that includes this GPU's architecture (a newer framework wheel), or rebuild with it in TORCH_CUDA_ARCH_LIST / CUDA_ARCH_BIN / -gencode"},
         {}},
        {"cuda-oom", 95, "The GPU ran out of memory",
         "The allocation did not fit in the free GPU memory: the model or batch is too large, other "
         "processes hold memory, or fragmentation wastes it.",
         {"Lower the batch size or sequence length; use mixed precision",
          "See who holds GPU memory: nvidia-smi",
          "Against fragmentation: export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"},
         {}},
        {"async-error", 99, "A CUDA kernel failed; the error surfaced at a later call",
         "Kernel launches are asynchronous: an illegal memory access or a failed device-side assert "
         "(often an index or label out of range) is reported at some later, unrelated API call, so the "
         "stack trace points to the wrong place.",
         {"Rerun with CUDA_LAUNCH_BLOCKING=1 to stop at the failing call",
          "For device-side asserts, check indices and labels (e.g. class labels < number of classes); run on CPU for a clear message",
          "Find the bad access: compute-sanitizer python your_script.py"},
         {DRIVER_ROOTS, "no-kernel-image", "cuda-oom", "missing-cudnn", "missing-other-lib"}},
    };
    // clang-format on
    for (auto& cause : c) {
        cause.layer = rules::registered(cause.id)->layer;  // Id guarantees it is registered
        if (cause.id == "sudo-path-lost") cause.found_with = {"nvcc-not-found"};
        // A log that shows WSL2 (its kernel, its loader folder, its name) beside a driver-level
        // failure: on WSL2 the cause is the platform, and no Linux driver belongs inside.
        // CUDA unavailable to the framework there is the same platform story.
        if (cause.id == "wsl")
            cause.found_with = {"driver-not-loaded", "nvidia-smi-missing", "missing-libcuda", "driver-too-old", "torch-cuda-unavailable"};
    }
    std::sort(c.begin(), c.end(), [](const CauseInfo& a, const CauseInfo& b) { return a.rank < b.rank; });
    return c;
}

#undef DRIVER_ROOTS

}  // namespace

const std::vector<CauseInfo>& all_causes() {
    static const std::vector<CauseInfo> causes = make_causes();
    return causes;
}

const CauseInfo* find_cause(std::string_view id) {
    const auto* mode = rules::find_failure_mode(id);
    if (!mode) return nullptr;
    for (const auto& c : all_causes())
        if (c.id == mode->id) return &c;
    return nullptr;
}

}  // namespace cudoctor::explain
