#pragma once
// Modulefiles for shared servers: Tcl for Environment Modules, Lua for Lmod, one per toolkit,
// named cuda/<version>, set so two CUDA modules cannot be loaded together (`conflict cuda` and
// EasyBuild's `conflict CUDA` in Tcl; `family("cuda")` and `conflict("CUDA")` in Lmod, which
// swaps or refuses a second one).
//
// The variables are those Spack's and EasyBuild's CUDA modules set, so `gcc -lcudart` and CMake's
// find_package(CUDAToolkit) work under the module without -I / -L flags:
//  - Spack (var/spack/repos/builtin/packages/cuda/package.py, setup_run_environment: CUDA_HOME,
//    NVHPC_CUDA_HOME; its module generator's prefix inspections add PATH bin, CPATH include,
//    LIBRARY_PATH lib64, CMAKE_PREFIX_PATH the prefix; sites append LIBRARY_PATH lib64/stubs and
//    ask for `conflict("cuda")` in modules.yaml).
//  - EasyBuild (easybuild/easyblocks/c/cuda.py, make_module_extra: CUDA_HOME, CUDA_ROOT,
//    CUDA_PATH; make_module_req_guess: PATH bin + nvvm/bin, LD_LIBRARY_PATH lib64 +
//    extras/CUPTI/lib64 + nvvm/lib64, LIBRARY_PATH lib64 + stubs/lib64, CPATH include +
//    extras/CUPTI/include + nvvm/include; its module is named CUDA).
// Where cudoctor differs (docs/toolkits.md says why): only folders that exist are named, the
// stubs are appended (never prepended, never on LD_LIBRARY_PATH: a stub libcuda must not be
// loaded), and folders the compiler and loader search anyway (/usr/include …) are left out.
#include <string>
#include <vector>

#include "host/host.hpp"
#include "toolkits/inventory.hpp"

namespace cudoctor::toolkits {

enum class ModuleFlavour { tcl, lua };

struct ModuleFile {
    std::string name;     ///< "cuda/12.4"
    std::string relpath;  ///< "cuda/12.4" (Tcl) or "cuda/12.4.lua" (Lmod), below the module folder
    std::string content;
};

/// The folders of one toolkit a module puts on each search path: each one exists in the toolkit
/// (asked through the Host, so an image answers for itself). A folder the compiler or the loader
/// searches anyway (/usr/include, /usr/lib/x86_64-linux-gnu, /usr/bin …, Debian's toolkit in /usr)
/// is left out: CPATH=/usr/include breaks libstdc++'s #include_next, and a prepended /usr/bin
/// reorders every command.
struct ModuleFolders {
    std::string bin;                     ///< PATH: the folder of nvcc ("" when none)
    std::vector<std::string> include;    ///< CPATH: include, extras/CUPTI/include, nvvm/include
    std::vector<std::string> libraries;  ///< LD_LIBRARY_PATH and LIBRARY_PATH: the libcudart folder, extras/CUPTI/lib64, nvvm/lib64
    std::string stubs;                   ///< appended to LIBRARY_PATH only: lib64/stubs (link against libcuda.so without a driver)
    std::string cmake_prefix;            ///< CMAKE_PREFIX_PATH: the toolkit folder ("" for /usr)
};

/// What `host` has of `entry`'s folders. Missing folders are left out, never an error.
ModuleFolders module_folders(const host::Host& host, const Entry& entry);

/// The modulefile of one toolkit. `module_version` is the part after "cuda/" (module_versions()).
ModuleFile make_modulefile(const Entry& entry, const ModuleFolders& folders, const std::string& module_version, ModuleFlavour flavour);

/// The module version of each entry: its major.minor ("12.4"), or the full version where two
/// toolkits share a major.minor. Same order as `entries`.
std::vector<std::string> module_versions(const std::vector<const Entry*>& entries);

}  // namespace cudoctor::toolkits
