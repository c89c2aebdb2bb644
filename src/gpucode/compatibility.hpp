#pragma once
// Which GPU code runs on which GPU (reference: formats.md 1.10). Pure functions, no I/O.
//   SASS sm_XY   runs on compute capability X.Z for Z >= Y (same major: binary compatibility);
//   SASS sm_XYa  runs only on exactly X.Y (arch-specific features);
//   SASS sm_XYf  runs on the family: X.Z for Z >= Y;
//   PTX compute_XY is JIT-compiled by the driver for any X'.Y' >= X.Y (a/f variants: as SASS),
//                  provided the driver is new enough for that PTX ISA version.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/version.hpp"
#include "formats/fatbin.hpp"

namespace cudoctor::gpucode {

struct ComputeCapability {
    int major = 0;
    int minor = 0;
    /// "8.9"
    std::string str() const;
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted comparison
    friend auto operator<=>(const ComputeCapability&, const ComputeCapability&) = default;
};

/// "8.9", "sm_89", "sm89", "compute_89", "89", "12.0", "sm_120", "120" (an "a"/"f" suffix is
/// ignored) → 8.9 / 12.0; nullopt for anything else.
std::optional<ComputeCapability> parse_compute_capability(std::string_view text);

/// One GPU code image, as far as running it is concerned.
struct Image {
    formats::FatbinKind kind = formats::FatbinKind::sass;
    std::uint32_t arch = 0;       ///< 86, 120
    char variant = 0;             ///< 0, 'a' (arch-specific) or 'f' (family-specific)
    std::uint16_t ptx_major = 0;  ///< PTX ISA version (PTX images only; 0 when unknown)
    std::uint16_t ptx_minor = 0;
    formats::FatbinCompression compression = formats::FatbinCompression::none;
    friend auto operator<=>(const Image&, const Image&) = default;
};

/// The image of a fatbin entry.
Image image_of(const formats::FatbinEntry& entry);
/// "sm_90a", "compute_120", "lto_75".
std::string target_name(const Image& image);
/// The inverse of target_name() for "sm_XY[a|f]", "compute_XY[a|f]" and "lto_XY"; nullopt
/// otherwise. The PTX ISA version is unknown (0.0) after the round trip.
std::optional<Image> parse_target(std::string_view name);

/// How a GPU runs a binary, best first.
enum class RunMode {
    native_exact,       ///< SASS for exactly this compute capability
    native_compatible,  ///< SASS of the same major and a lower minor (binary compatible)
    ptx_jit,            ///< no SASS fits; the driver JIT-compiles PTX at first start
    cannot_run,         ///< "no kernel image is available for execution on the device"
};

/// "runs natively", "runs natively (binary-compatible SASS)", "runs through PTX JIT", "cannot run".
const char* to_string(RunMode mode);
/// "native", "native-compatible", "ptx-jit", "cannot-run" (for JSON).
const char* to_id(RunMode mode);

/// How one image runs on a GPU of capability `cc`.
RunMode run_mode(const Image& image, ComputeCapability cc);

/// The CUDA release whose driver first loads PTX ISA `major.minor` (NVIDIA's PTX release
/// history: 7.8 → 11.8, 8.5 → 12.5, 8.6 → 12.7, 9.0 → 13.0); nullopt for an unknown ISA.
std::optional<Version> cuda_for_ptx_isa(int major, int minor);

/// A verdict of one binary for one GPU.
struct Verdict {
    RunMode mode = RunMode::cannot_run;
    std::string via;                        ///< the image that decides: "sm_86", "compute_90"; "" when it cannot run
    std::optional<Version> ptx_needs_cuda;  ///< PTX JIT: the driver must run at least this CUDA
    std::optional<bool> driver_too_old;     ///< PTX JIT: known when the driver's CUDA is known
    std::uint64_t modules_usable = 0;       ///< modules (fatbin containers) with an image for the GPU
    std::uint64_t modules_total = 0;        ///< modules with SASS or PTX at all (LTO-IR-only ones left out)
    /// Partial coverage (see is_partial_coverage): the GPU runs some modules, but far fewer than
    /// the binary's best-covered GPU does, so most of its kernels will not load on it.
    bool partial = false;
    std::optional<ComputeCapability> best_covered;  ///< the compute capability with the most usable modules
    std::uint64_t best_covered_modules = 0;         ///< how many modules that one can use
};

/// The coverage rule: a GPU that can use `usable` modules (at least one) of a binary whose
/// best-covered GPU can use `best` is only partly served when `usable` is below one in
/// kPartialShare of `best`. Libraries give different GPUs different kernel sets on purpose, so
/// "fewer modules than the best" alone is normal; the cut sits between what NVIDIA's own
/// CUDA 13 libraries (x86_64) show for the GPUs they support and for those they dropped:
/// supported ones have at least 10.4% of the best (cuBLASLt 13.0 on 7.5: 167 of the 1612
/// modules 12.0 uses); dropped ones at most 3.9% (cuSOLVERMg on 11.0: 4 of 103; cuDNN 9.19's
/// engines on 7.0: 2 of 1159). Below one in twenty, so, a GPU is not what the binary was built
/// for, and code it calls will mostly fail with "no kernel image is available".
inline constexpr std::uint64_t kPartialShare = 20;
[[nodiscard]] constexpr bool is_partial_coverage(std::uint64_t usable, std::uint64_t best) {
    return usable > 0 && usable * kPartialShare < best;
}

/// The verdict for a binary whose modules hold `modules` images: the best image over all
/// modules decides (a library's modules may target different GPUs on purpose), and the count
/// of modules that have something for this GPU is kept. `driver_max_cuda` (the highest CUDA the
/// installed driver runs) decides whether PTX JIT works; unknown → driver_too_old unset.
/// The best-covered GPU is sought among the compute capabilities the binary's images target
/// (sm_86 → 8.6, compute_90 → 9.0), and `partial` set by is_partial_coverage().
Verdict verdict_for(const std::vector<std::vector<Image>>& modules, ComputeCapability cc,
                    const std::optional<Version>& driver_max_cuda = std::nullopt);

}  // namespace cudoctor::gpucode
