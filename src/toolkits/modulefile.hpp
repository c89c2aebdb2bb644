#pragma once
// Modulefiles for shared servers: Tcl for Environment Modules, Lua for Lmod, one per toolkit,
// named cuda/<version>, set so two CUDA modules cannot be loaded together (`conflict cuda` in
// Tcl; `family("cuda")` in Lmod, which swaps or refuses a second one).
#include <string>
#include <vector>

#include "toolkits/inventory.hpp"

namespace cudoctor::toolkits {

enum class ModuleFlavour { tcl, lua };

struct ModuleFile {
    std::string name;     ///< "cuda/12.4"
    std::string relpath;  ///< "cuda/12.4" (Tcl) or "cuda/12.4.lua" (Lmod), below the module folder
    std::string content;
};

/// The modulefile of one toolkit. `module_version` is the part after "cuda/" (module_versions()).
ModuleFile make_modulefile(const Entry& entry, const std::string& module_version, ModuleFlavour flavour);

/// The module version of each entry: its major.minor ("12.4"), or the full version where two
/// toolkits share a major.minor. Same order as `entries`.
std::vector<std::string> module_versions(const std::vector<const Entry*>& entries);

}  // namespace cudoctor::toolkits
