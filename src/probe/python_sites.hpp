#pragma once
#include <vector>

#include "probe/context.hpp"

namespace cudoctor::probe {

/// Every site-packages / dist-packages folder a user's Python would import from, found without
/// running Python: the python3 and python on PATH (pyenv shims and venvs understood), the
/// active virtual environment, every conda environment, Debian's dist-packages, the user site,
/// and each --python interpreter. Canonical paths, no duplicates, discovery order.
std::vector<PythonSite> find_python_sites(Context& ctx);

}  // namespace cudoctor::probe
