#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "probe/context.hpp"

namespace cudoctor::probe {

/// The real nvcc a path leads to: symbolic links followed, and small "#!" wrapper scripts
/// (`exec /usr/local/cuda-13.0/bin/nvcc "$@"`) followed to their target — read, never run.
/// nullopt when the path does not resolve.
std::optional<std::string> real_nvcc(Context& ctx, std::string_view path);

}  // namespace cudoctor::probe
