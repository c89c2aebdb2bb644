#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// Reader of a conda environment's record of one installed package. Text in, value out; no I/O.
namespace cudoctor::formats {

/// One conda-meta/<name>-<version>-<build>.json.
struct CondaPackage {
    std::string name;                  ///< "cudatoolkit", "cuda-version", "pytorch"
    std::string version;               ///< "11.8.0"; "" when absent or not a string
    std::string build;                 ///< "h6a678d5_13"; "" when absent or not a string
    std::string channel;               ///< as written: "conda-forge" or "https://conda.anaconda.org/conda-forge/linux-64"
    std::vector<std::string> depends;  ///< "libgcc-ng >=11.2.0", …; entries that are not strings are skipped
};

/// conda-meta/<name>-<version>-<build>.json (keys name, version, build, channel, depends[]).
/// Every other member ("files", "paths_data", which may list tens of thousands of paths) is
/// skipped while parsing, never built. Errc::parse when the text is not a JSON object (with the
/// parser's message) or has no string "name".
Expected<CondaPackage> parse_conda_meta(std::string_view text);

}  // namespace cudoctor::formats
