// tie_to_machine: dispatch to the per-cause checks, then weigh the evidence.
#include <algorithm>
#include <cctype>
#include <functional>

#include "common/text.hpp"
#include "explain/tie_in_util.hpp"
#include "rules/ids.hpp"
#include "rules/rules.hpp"

namespace cudoctor::explain {

namespace detail {

void set_fix(Cause& c, const std::vector<std::string>& steps) {
    c.fix.clear();
    for (const auto& s : steps) add_fix_lines(c, s);
}

void add_fix_lines(Cause& c, std::string_view block) {
    for (auto line : text::lines(block))
        if (!text::trim(line).empty()) c.fix.emplace_back(line);
}

std::optional<int> soname_major(std::string_view soname) {
    if (auto so = soname.find(".so."); so != std::string_view::npos) {
        auto v = Version::parse(soname.substr(so + 4));
        if (v) return v->major();
        return std::nullopt;
    }
    // Windows: cudart64_110.dll (major 11, minor 0), cudnn64_8.dll, cublas64_12.dll.
    if (auto us = soname.rfind('_'); us != std::string_view::npos) {
        std::string digits;
        for (char ch : soname.substr(us + 1)) {
            if (!std::isdigit(static_cast<unsigned char>(ch))) break;
            digits += ch;
        }
        if (digits.empty() || digits.size() > 3) return std::nullopt;
        if (digits.size() == 3) digits.pop_back();  // 110 → 11 (the last digit is the minor)
        return std::stoi(digits);
    }
    return std::nullopt;
}

std::optional<Version> cuda_from_code(std::string_view code) {
    if (code.empty() || code.size() > 6 ||
        !std::all_of(code.begin(), code.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
        return std::nullopt;
    const int n = std::stoi(std::string(code));
    return Version({n / 1000, (n % 1000) / 10});
}

std::string capability_of(std::string_view sm) {
    std::string digits;
    for (char ch : sm)
        if (std::isdigit(static_cast<unsigned char>(ch))) digits += ch;
    if (sm.find('.') != std::string_view::npos) {
        auto dot = sm.find('.');
        return std::string(text::trim(sm.substr(0, dot))) + "." + std::string(sm.substr(dot + 1, 1));
    }
    if (digits.size() < 2 || digits.size() > 3) return "";
    return digits.substr(0, digits.size() - 1) + "." + digits.back();
}

}  // namespace detail

void tie_to_machine(std::vector<Cause>& causes, const snapshot::Snapshot& snap, const kb::Kb& kb,
                    const std::optional<host::BuildResources>& resources) {
    using Tie = std::function<void(Cause&, const snapshot::Snapshot&, const kb::Kb&)>;
    struct CauseTie {
        rules::Id cause;
        Tie tie;
    };
    static const std::vector<CauseTie> ties = {
        {"driver-not-loaded", detail::tie_driver_not_loaded},
        // nvidia-smi missing or failing is read against the same module state.
        {"nvidia-smi-missing", detail::tie_driver_not_loaded},
        {"driver-library-mismatch", detail::tie_driver_lib_mismatch},
        {"driver-too-old", detail::tie_driver_too_old},
        {"missing-libcuda", detail::tie_missing_libcuda},
        {"wsl", detail::tie_wsl},
        {"missing-cudart", detail::tie_missing_library},
        {"missing-cudnn", detail::tie_missing_library},
        {"missing-other-lib", detail::tie_missing_library},
        {"no-kernel-image", detail::tie_no_kernel_image},
        {"torch-cuda-unavailable", detail::tie_torch_cuda_unavailable},
        {"gcc-too-new-for-toolkit", detail::tie_unsupported_gcc},
        {"nvcc-not-found", detail::tie_nvcc_not_found},
        {"sudo-path-lost", detail::tie_sudo_secure_path},
        {"extension-build-cuda-mismatch", detail::tie_cuda_version_mismatch_build},
        {"opencv-cuda", detail::tie_opencv_cuda},
        {"cuda-oom", detail::tie_runtime_context},
        {"async-error", detail::tie_runtime_context},
        {"runfile-corrupt", detail::tie_runtime_context},
        {"apt-conflict", detail::tie_runtime_context},
        {"apt-repo-error", detail::tie_apt_repo},
        {"container-gpu-unavailable", detail::tie_container_runtime},
        {"dkms-build-failed", detail::tie_dkms},
        {"runfile-installer-refused", detail::tie_runfile_refused},
    };
    const auto findings = rules::evaluate(snap, kb);
    auto fired = [&](std::string_view rule) {
        return std::any_of(findings.begin(), findings.end(), [&](const snapshot::Finding& f) { return f.id == rule; });
    };
    for (auto& c : causes) {
        auto it = std::find_if(ties.begin(), ties.end(), [&](const CauseTie& t) { return t.cause == c.id; });
        if (it != ties.end()) it->tie(c, snap, kb);
        if (c.id == "build-oom-killed") detail::tie_build_oom(c, resources);
        if (const auto* mode = rules::find_failure_mode(c.id)) {
            for (auto rule : mode->confirmed_by)
                if (!rule.empty() && fired(rule)) c.confirming_rules.emplace_back(rule);
            for (auto rule : mode->contradicted_absent)
                if (!rule.empty() && !fired(rule)) c.contradicting_rules.emplace_back(rule);
        }
        const bool confirmed = std::any_of(c.evidence.begin(), c.evidence.end(), [](const Fact& f) { return f.verdict == "confirms"; });
        const bool contradicted = std::any_of(c.evidence.begin(), c.evidence.end(), [](const Fact& f) { return f.verdict == "contradicts"; });
        if (confirmed && !contradicted) c.confidence = "high";
        else if (contradicted && !confirmed) c.confidence = c.confidence == "high" ? "medium" : "low";
    }
}

}  // namespace cudoctor::explain
