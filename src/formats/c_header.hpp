#pragma once
#include <optional>
#include <string_view>

#include "common/error.hpp"
#include "common/version.hpp"

/// Readers of the C headers that say which CUDA toolkit and cuDNN are installed, and which host
/// compilers a toolkit's nvcc accepts. Text in, value out; no I/O.
namespace cudoctor::formats {

/// Replacement text of the first `#define NAME ...` line (object-like macros only; `# define`
/// with spaces is fine), trimmed and without a trailing `//` or `/* */` comment. nullopt when
/// there is no such line. The first definition wins, even inside `#if` branches or comments.
std::optional<std::string_view> find_define(std::string_view header, std::string_view name);

/// Value of `#define NAME <integer>` (decimal, hex or octal; integer suffixes u/l; optional
/// parentheses and minus sign; any whitespace; optional trailing comment). The first definition
/// wins. nullopt when absent, when that first definition is not an integer literal, or when the
/// number does not fit in a long long.
std::optional<long long> find_define_int(std::string_view header, std::string_view name);

/// The toolkit version of cuda.h's `#define CUDA_VERSION 12040` → 12.4 (major*1000 + minor*10).
/// Errc::not_found when CUDA_VERSION is not defined; Errc::parse when it is not an integer or
/// lies outside 1000..999999.
Expected<Version> parse_cuda_h_version(std::string_view cuda_h);

/// The cuDNN version from cudnn_version.h / cudnn_version_v9.h (cuDNN 8+) or cudnn.h (cuDNN <= 7):
/// CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL → 9.19.0. Errc::not_found when CUDNN_MAJOR is not
/// defined; Errc::parse when one of the three is missing, not an integer, or outside 0..9999.
Expected<Version> parse_cudnn_version_header(std::string_view header);

/// The newest host compilers a toolkit's include/crt/host_config.h lets nvcc use.
struct HostCompilerLimits {
    std::optional<int> max_gcc_major;
    std::optional<int> max_clang_major;
    /// Only for toolkits <= 7.5, whose check also names a minor (`gcc versions later than 4.9`).
    std::optional<int> max_gcc_minor;
};

/// Reads the `#error -- unsupported GNU version!` and `#error -- unsupported clang version!`
/// checks of host_config.h (every generation: `#if __GNUC__ > 15`,
/// `#if __GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ > 9)`,
/// `#if (__clang_major__ >= 21) || ...`) and returns the newest major each accepts. The Grace,
/// HOS and Apple clang checks are ignored; only the first check of each kind is read, and when
/// its condition has an unknown shape, the number in its message ("later than 15", "less than
/// 21"). A limit is nullopt when its `#error` is absent (also when someone commented it out: nvcc
/// then accepts any version) or names no upper bound; garbage gives both nullopt.
HostCompilerLimits parse_host_config(std::string_view text);

}  // namespace cudoctor::formats
