#pragma once
// Which installed toolkit a user means: "12", "12.4", "12.4.1" (the release) or "12.4.131" (nvcc's
// version), or a folder; and the per-project pin, a .cuda-version file found upward.
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"
#include "host/host.hpp"
#include "toolkits/inventory.hpp"

namespace cudoctor::toolkits {

/// The entry `spec` names. Versions match loosely by their leading parts (12 → every 12.x;
/// 12.4 → 12.4.*; three parts match the release or nvcc's version exactly); a spec starting with
/// '/' matches a toolkit folder (links resolved). Errc::usage "no CUDA toolkit X installed
/// (installed: …)" when nothing matches, "X is ambiguous: …; say which" (listing every choice with
/// its folder) when more than one does, "'X' is not a version" for anything else.
Expected<const Entry*> match_toolkit(const host::Host& host, const Inventory& inv, std::string_view spec);

/// A version pin found upward from `start_dir` (a machine path).
struct Pin {
    std::string version;  ///< "12.4"
    std::string file;     ///< "/home/dev/project/.cuda-version"
};

/// Reads the first .cuda-version from `start_dir` up to "/": its first line that is neither empty
/// nor a comment ('#'), trimmed. nullopt when there is none; Errc::parse when the file found is
/// larger than 4 KiB, empty, or names no version.
Expected<std::optional<Pin>> find_pin(const host::Host& host, std::string_view start_dir);

}  // namespace cudoctor::toolkits
