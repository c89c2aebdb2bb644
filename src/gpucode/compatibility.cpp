#include "gpucode/compatibility.hpp"

#include <charconv>
#include <set>

namespace cudoctor::gpucode {
namespace {

std::optional<int> to_int(std::string_view s) {
    int v = 0;
    if (s.empty() || s.size() > 4) return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

/// "86" → 8.6, "120" → 12.0 (the last digit is the minor).
std::optional<ComputeCapability> from_sm_digits(std::string_view digits) {
    if (digits.size() < 2) return std::nullopt;
    auto major = to_int(digits.substr(0, digits.size() - 1));
    auto minor = to_int(digits.substr(digits.size() - 1));
    if (!major || !minor || *major == 0) return std::nullopt;
    return ComputeCapability{*major, *minor};
}

ComputeCapability cc_of(std::uint32_t arch) { return {static_cast<int>(arch / 10), static_cast<int>(arch % 10)}; }

/// CUDA release ↔ PTX ISA, from NVIDIA's PTX ISA release history as cuda-python encodes it
/// (cuda/bindings/utils/_ptx_utils.py, "Mapping based on the official PTX ISA <-> CUDA Release
/// table").
struct IsaRow {
    int isa_major, isa_minor, cuda_major, cuda_minor;
};
constexpr IsaRow kPtxIsa[] = {
    {6, 0, 9, 0},  {6, 1, 9, 1},  {6, 2, 9, 2},  {6, 3, 10, 0}, {6, 4, 10, 1}, {6, 5, 10, 2}, {7, 0, 11, 0}, {7, 1, 11, 1}, {7, 2, 11, 2},
    {7, 3, 11, 3}, {7, 4, 11, 4}, {7, 5, 11, 5}, {7, 6, 11, 6}, {7, 7, 11, 7}, {7, 8, 11, 8}, {8, 0, 12, 0}, {8, 1, 12, 1}, {8, 2, 12, 2},
    {8, 3, 12, 3}, {8, 4, 12, 4}, {8, 5, 12, 5}, {8, 6, 12, 7}, {8, 7, 12, 8}, {8, 8, 12, 9}, {9, 0, 13, 0}, {9, 1, 13, 1},
};

}  // namespace

std::string ComputeCapability::str() const { return std::to_string(major) + "." + std::to_string(minor); }

std::optional<ComputeCapability> parse_compute_capability(std::string_view text) {
    for (std::string_view prefix : {"sm_", "sm", "compute_"}) {
        if (text.starts_with(prefix)) {
            text.remove_prefix(prefix.size());
            break;
        }
    }
    if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) text.remove_suffix(1);
    if (auto dot = text.find('.'); dot != std::string_view::npos) {
        auto major = to_int(text.substr(0, dot));
        auto minor = to_int(text.substr(dot + 1));
        if (!major || !minor || *major == 0 || *minor > 9) return std::nullopt;
        return ComputeCapability{*major, *minor};
    }
    return from_sm_digits(text);
}

Image image_of(const formats::FatbinEntry& e) {
    Image image;
    image.kind = e.kind;
    image.arch = e.arch;
    image.variant = e.arch_specific ? 'a' : e.family_specific ? 'f' : 0;
    if (e.kind == formats::FatbinKind::ptx) {
        image.ptx_major = e.version_major;
        image.ptx_minor = e.version_minor;
    }
    image.compression = e.compression;
    return image;
}

std::string target_name(const Image& image) {
    formats::FatbinEntry e;
    e.kind = image.kind;
    e.arch = image.arch;
    e.arch_specific = image.variant == 'a';
    e.family_specific = image.variant == 'f';
    return formats::target_name(e);
}

std::optional<Image> parse_target(std::string_view name) {
    Image image;
    if (name.starts_with("sm_")) image.kind = formats::FatbinKind::sass;
    else if (name.starts_with("compute_")) image.kind = formats::FatbinKind::ptx;
    else if (name.starts_with("lto_")) image.kind = formats::FatbinKind::lto_ir;
    else return std::nullopt;
    name.remove_prefix(name.find('_') + 1);
    if (!name.empty() && (name.back() == 'a' || name.back() == 'f')) {
        image.variant = name.back();
        name.remove_suffix(1);
    }
    auto arch = to_int(name);
    if (!arch || *arch < 10) return std::nullopt;
    image.arch = static_cast<std::uint32_t>(*arch);
    return image;
}

const char* to_string(RunMode mode) {
    switch (mode) {
        case RunMode::native_exact: return "runs natively";
        case RunMode::native_compatible: return "runs natively (binary-compatible SASS)";
        case RunMode::ptx_jit: return "runs through PTX JIT";
        case RunMode::cannot_run: return "cannot run";
    }
    return "cannot run";
}

const char* to_id(RunMode mode) {
    switch (mode) {
        case RunMode::native_exact: return "native";
        case RunMode::native_compatible: return "native-compatible";
        case RunMode::ptx_jit: return "ptx-jit";
        case RunMode::cannot_run: return "cannot-run";
    }
    return "cannot-run";
}

RunMode run_mode(const Image& image, ComputeCapability cc) {
    const ComputeCapability target = cc_of(image.arch);
    const bool exact = cc == target;
    const bool same_family = cc.major == target.major && cc.minor >= target.minor;
    switch (image.kind) {
        case formats::FatbinKind::sass:
            if (image.variant == 'a') return exact ? RunMode::native_exact : RunMode::cannot_run;
            if (exact) return RunMode::native_exact;
            return same_family ? RunMode::native_compatible : RunMode::cannot_run;
        case formats::FatbinKind::ptx:
            if (image.variant == 'a') return exact ? RunMode::ptx_jit : RunMode::cannot_run;
            if (image.variant == 'f') return same_family ? RunMode::ptx_jit : RunMode::cannot_run;
            return cc >= target ? RunMode::ptx_jit : RunMode::cannot_run;
        case formats::FatbinKind::lto_ir:
        case formats::FatbinKind::other: return RunMode::cannot_run;
    }
    return RunMode::cannot_run;
}

std::optional<Version> cuda_for_ptx_isa(int major, int minor) {
    for (const auto& row : kPtxIsa)
        if (row.isa_major == major && row.isa_minor == minor) return Version({row.cuda_major, row.cuda_minor});
    return std::nullopt;
}

namespace {

/// How many modules have an image that `cc` can run.
std::uint64_t usable_modules(const std::vector<std::vector<Image>>& modules, ComputeCapability cc) {
    std::uint64_t usable = 0;
    for (const auto& images : modules)
        for (const auto& image : images)
            if (run_mode(image, cc) != RunMode::cannot_run) {
                ++usable;
                break;
            }
    return usable;
}

}  // namespace

Verdict verdict_for(const std::vector<std::vector<Image>>& modules, ComputeCapability cc, const std::optional<Version>& driver_max_cuda) {
    Verdict verdict;
    const Image* best = nullptr;
    for (const auto& images : modules) {
        bool runnable_at_all = false;
        RunMode module_best = RunMode::cannot_run;
        for (const auto& image : images) {
            if (image.kind != formats::FatbinKind::sass && image.kind != formats::FatbinKind::ptx) continue;
            runnable_at_all = true;
            const RunMode mode = run_mode(image, cc);
            if (mode < module_best) module_best = mode;
            // Among PTX images the oldest ISA asks least of the driver.
            const bool better =
                mode < verdict.mode || (mode == verdict.mode && mode == RunMode::ptx_jit && best &&
                                        std::pair(image.ptx_major, image.ptx_minor) < std::pair(best->ptx_major, best->ptx_minor));
            if (mode != RunMode::cannot_run && (better || !best)) {
                verdict.mode = mode;
                best = &image;
            }
        }
        if (!runnable_at_all) continue;
        ++verdict.modules_total;
        if (module_best != RunMode::cannot_run) ++verdict.modules_usable;
    }
    if (!best) return verdict;
    verdict.via = target_name(*best);
    std::set<ComputeCapability> targeted;
    for (const auto& images : modules)
        for (const auto& image : images)
            if (image.kind == formats::FatbinKind::sass || image.kind == formats::FatbinKind::ptx) targeted.insert(cc_of(image.arch));
    for (const auto& other : targeted) {
        const auto usable = usable_modules(modules, other);
        if (usable > verdict.best_covered_modules) {
            verdict.best_covered = other;
            verdict.best_covered_modules = usable;
        }
    }
    verdict.partial = is_partial_coverage(verdict.modules_usable, verdict.best_covered_modules);
    if (verdict.mode == RunMode::ptx_jit) {
        verdict.ptx_needs_cuda = cuda_for_ptx_isa(best->ptx_major, best->ptx_minor);
        if (verdict.ptx_needs_cuda && driver_max_cuda) verdict.driver_too_old = *driver_max_cuda < *verdict.ptx_needs_cuda;
    }
    return verdict;
}

}  // namespace cudoctor::gpucode
