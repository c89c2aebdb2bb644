#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace cudoctor::formats {

/// The program a small wrapper script hands over to: the first absolute path after `exec` in a
/// "#!" script ("#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc \"$@\"" → that path). Quotes
/// around the path are removed. nullopt for anything that is not a "#!" script or has no
/// `exec /absolute/path` line (a real binary, a script that computes its target).
std::optional<std::string> wrapper_exec_target(std::string_view script);

}  // namespace cudoctor::formats
