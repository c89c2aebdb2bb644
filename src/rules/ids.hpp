#pragma once
// The one id registry: every failure mode that check's rules, explain's causes and verify's blame
// can name, with its one id and its layer. A failure mode seen both on a machine (a rule) and in a
// log (a cause) has one id, the rule's. For explain's causes it also says which rules confirm the
// cause when they fire, and which argue against it when a probed machine does not fire them.
//
// Code names ids through `Id`, which does not compile for an id missing here; tables read at run
// time (the rules table, data/error_catalog.tsv, --kb overrides) are checked when they load.
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>

#include "snapshot/kinds.hpp"

namespace cudoctor::rules {

using snapshot::Layer;

/// Who names a failure mode: a check rule, an explain cause, or both (one id for both).
enum class NamedBy { rule, cause, both };

struct FailureMode {
    std::string_view id;
    Layer layer = Layer::platform;
    NamedBy named_by = NamedBy::rule;
    /// explain's id for this cause before the registry merged it with the rule's (or before the
    /// cause was renamed); accepted wherever a cause id is read and reported as "alias" in
    /// explain --json, for one release.
    std::string_view old_id = {};
    /// Rules that, when they fire on a machine, prove this cause.
    std::array<std::string_view, 3> confirmed_by = {};
    /// Rules whose absence on a probed machine argues against this cause.
    std::array<std::string_view, 1> contradicted_absent = {};
};

// Not clang-formatted: one row per failure mode.
// clang-format off
inline constexpr auto kFailureModes = std::to_array<FailureMode>({
    // -- named by a rule and a cause (the rule's id; explain's old id stays an alias for one release)
    {.id = "driver-library-mismatch", .layer = Layer::driver, .named_by = NamedBy::both, .old_id = "driver-lib-mismatch",
     .confirmed_by = {"driver-library-mismatch"}, .contradicted_absent = {"driver-library-mismatch"}},
    {.id = "gcc-too-new-for-toolkit", .layer = Layer::toolkit, .named_by = NamedBy::both, .old_id = "unsupported-gcc",
     .confirmed_by = {"gcc-too-new-for-toolkit"}, .contradicted_absent = {"gcc-too-new-for-toolkit"}},
    // The rule reads the nvcc on PATH, torch reads CUDA_HOME's: the rule's absence proves nothing.
    {.id = "extension-build-cuda-mismatch", .layer = Layer::framework, .named_by = NamedBy::both, .old_id = "cuda-version-mismatch-build",
     .confirmed_by = {"extension-build-cuda-mismatch"}},
    // -- named by explain's causes only
    {.id = "runfile-corrupt", .layer = Layer::toolkit, .named_by = NamedBy::cause},
    {.id = "apt-conflict", .layer = Layer::platform, .named_by = NamedBy::cause},
    {.id = "wsl", .layer = Layer::platform, .named_by = NamedBy::cause, .confirmed_by = {"wsl-linux-driver-installed"}},
    {.id = "driver-not-loaded", .layer = Layer::driver, .named_by = NamedBy::cause,
     .confirmed_by = {"gpu-without-driver", "nouveau-loaded", "secure-boot-blocks-module"}},
    // driver-too-old-for-toolkit also warns inside minor-version compatibility, where programs still run.
    {.id = "driver-too-old", .layer = Layer::driver, .named_by = NamedBy::cause, .confirmed_by = {"driver-too-old-for-framework"}},
    {.id = "missing-libcuda", .layer = Layer::driver, .named_by = NamedBy::cause},
    {.id = "nvcc-not-found", .layer = Layer::toolkit, .named_by = NamedBy::cause, .confirmed_by = {"toolkit-not-on-path"}},
    // sudo runs commands with its own secure_path, not the user's PATH: no check rule sees that.
    {.id = "sudo-path-lost", .layer = Layer::environment, .named_by = NamedBy::cause, .old_id = "sudo-secure-path"},
    {.id = "build-oom-killed", .layer = Layer::platform, .named_by = NamedBy::cause},
    {.id = "apt-repo-error", .layer = Layer::platform, .named_by = NamedBy::cause,
     .confirmed_by = {"apt-cuda-repo-wrong-distro", "apt-local-repo-stale"}},
    {.id = "nvidia-smi-missing", .layer = Layer::driver, .named_by = NamedBy::cause,
     .confirmed_by = {"gpu-without-driver", "nouveau-loaded", "secure-boot-blocks-module"}},
    {.id = "runfile-installer-refused", .layer = Layer::driver, .named_by = NamedBy::cause, .confirmed_by = {"nouveau-loaded"}},
    {.id = "container-gpu-unavailable", .layer = Layer::platform, .named_by = NamedBy::cause,
     .confirmed_by = {"container-toolkit-missing", "container-no-compute-capability"}},
    {.id = "dkms-build-failed", .layer = Layer::driver, .named_by = NamedBy::cause, .confirmed_by = {"driver-module-not-built-for-kernel"}},
    {.id = "missing-cudart", .layer = Layer::toolkit, .named_by = NamedBy::cause, .confirmed_by = {"cudart-not-loadable"}},
    {.id = "missing-cudnn", .layer = Layer::cudnn, .named_by = NamedBy::cause},
    {.id = "missing-other-lib", .layer = Layer::toolkit, .named_by = NamedBy::cause},
    {.id = "opencv-cuda", .layer = Layer::framework, .named_by = NamedBy::cause},
    {.id = "torch-cuda-unavailable", .layer = Layer::framework, .named_by = NamedBy::cause,
     .confirmed_by = {"framework-cpu-only-build", "driver-too-old-for-framework", "gpu-without-driver"}},
    {.id = "no-kernel-image", .layer = Layer::framework, .named_by = NamedBy::cause, .confirmed_by = {"framework-gpu-arch-unsupported"}},
    {.id = "cuda-oom", .layer = Layer::framework, .named_by = NamedBy::cause},
    {.id = "async-error", .layer = Layer::framework, .named_by = NamedBy::cause},
    // -- named by check's rules only (verify blames these too)
    {.id = "vm-without-gpu-passthrough", .layer = Layer::gpu},
    {.id = "wsl-memory-limit-low", .layer = Layer::platform},
    {.id = "nouveau-loaded", .layer = Layer::driver},
    {.id = "secure-boot-blocks-module", .layer = Layer::driver},
    {.id = "driver-module-not-built-for-kernel", .layer = Layer::driver},
    {.id = "gpu-without-driver", .layer = Layer::driver},
    {.id = "driver-too-old-for-toolkit", .layer = Layer::driver},
    {.id = "driver-too-old-for-framework", .layer = Layer::driver},
    {.id = "smi-cuda-version-is-not-toolkit", .layer = Layer::driver},
    {.id = "wsl-linux-driver-installed", .layer = Layer::driver},
    {.id = "gpu-arch-unsupported-by-toolkit", .layer = Layer::toolkit},
    {.id = "toolkit-not-on-path", .layer = Layer::toolkit},
    {.id = "nvcc-shadowed", .layer = Layer::toolkit},
    {.id = "cuda-home-invalid", .layer = Layer::toolkit},
    {.id = "cuda-symlink-dangling", .layer = Layer::toolkit},
    {.id = "cudnn-cuda-mismatch", .layer = Layer::cudnn},
    {.id = "cudnn-header-library-mismatch", .layer = Layer::cudnn},
    {.id = "cudnn-missing-in-default-toolkit", .layer = Layer::cudnn},
    {.id = "framework-cpu-only-build", .layer = Layer::framework},
    {.id = "framework-gpu-arch-unsupported", .layer = Layer::framework},
    {.id = "tensorflow-cuda-mismatch", .layer = Layer::framework},
    {.id = "triton-compiler-missing", .layer = Layer::framework},
    {.id = "ld-library-path-missing-dir", .layer = Layer::environment},
    {.id = "ld-library-path-empty-entry", .layer = Layer::environment},
    {.id = "cudart-not-loadable", .layer = Layer::environment},
    {.id = "multiple-cudart-on-loader-path", .layer = Layer::environment},
    {.id = "conda-cuda-runtime-conflict", .layer = Layer::environment},
    {.id = "shell-rc-overwrites-ld-library-path", .layer = Layer::environment},
    {.id = "shell-rc-appends-cuda-path", .layer = Layer::environment},
    {.id = "cuda-launch-blocking-left-on", .layer = Layer::environment},
    {.id = "shell-rc-names-missing-toolkit", .layer = Layer::environment},
    {.id = "cudnn-links-flattened", .layer = Layer::cudnn},
    {.id = "distro-cuda-toolkit-old", .layer = Layer::toolkit},
    {.id = "container-no-compute-capability", .layer = Layer::platform},
    {.id = "container-driver-too-old", .layer = Layer::driver},
    {.id = "container-toolkit-missing", .layer = Layer::platform},
    {.id = "apt-cuda-repo-wrong-distro", .layer = Layer::platform},
    {.id = "apt-local-repo-stale", .layer = Layer::platform},
    {.id = "apt-driver-pin-conflict", .layer = Layer::driver},
});
// clang-format on

/// The index in kFailureModes of the failure mode with this canonical id, or kNotRegistered.
/// Compile-time checks use the index, not a pointer: GCC's UBSan instrumentation makes a pointer
/// compared with null no constant expression, so the sanitizer build would not compile.
inline constexpr std::size_t kNotRegistered = static_cast<std::size_t>(-1);
constexpr std::size_t registered_index(std::string_view id) {
    for (std::size_t i = 0; i < kFailureModes.size(); ++i)
        if (kFailureModes[i].id == id) return i;
    return kNotRegistered;
}

/// The registered failure mode with this canonical id, or nullptr.
constexpr const FailureMode* registered(std::string_view id) {
    const auto i = registered_index(id);
    return i == kNotRegistered ? nullptr : &kFailureModes[i];
}

/// A failure-mode id written in the code. Built from a string literal at compile time: an id the
/// registry lacks (a typo, an old alias) does not compile.
class Id {
  public:
    consteval Id(const char* id) : m_id(id) {
        if (registered_index(m_id) == kNotRegistered) throw "not a failure-mode id of src/rules/ids.hpp";
    }
    constexpr std::string_view view() const { return m_id; }
    constexpr operator std::string_view() const { return m_id; }
    friend constexpr bool operator==(Id a, std::string_view b) { return a.m_id == b; }
    friend std::ostream& operator<<(std::ostream& out, Id id) { return out << id.m_id; }

  private:
    std::string_view m_id;
};

/// A rule's id written in the code (a failure mode check's rules name): like Id, and an id only
/// explain's causes use does not compile either.
class RuleId {
  public:
    consteval RuleId(const char* id) : m_id(id) {
        const auto i = registered_index(m_id);
        if (i == kNotRegistered || kFailureModes[i].named_by == NamedBy::cause) throw "not a rule id of src/rules/ids.hpp";
    }
    constexpr std::string_view view() const { return m_id; }
    constexpr operator std::string_view() const { return m_id; }
    friend constexpr bool operator==(RuleId a, std::string_view b) { return a.m_id == b; }
    friend std::ostream& operator<<(std::ostream& out, RuleId id) { return out << id.m_id; }

  private:
    std::string_view m_id;
};

/// Every failure mode, in the registry's order.
std::span<const FailureMode> all_failure_modes();
/// The failure mode named `id` or, for one release, by its old explain id; nullptr when neither.
const FailureMode* find_failure_mode(std::string_view id_or_alias);
/// Whether `id` is a rule's id (a failure mode named by a rule).
bool is_rule_id(std::string_view id);

}  // namespace cudoctor::rules
