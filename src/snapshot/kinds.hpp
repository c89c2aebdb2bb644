#pragma once
// The closed sets of the Snapshot and the findings, as enums: a typo in a string compare is a
// silent wrong answer, a typo in an enumerator does not compile. Each has one spelling, the one
// the JSON and the reports use (to_string), and one reader of that spelling (the *_from
// functions, nullopt for anything else).
#include <array>
#include <optional>
#include <ostream>
#include <string_view>

namespace cudoctor::snapshot {

/// How bad a finding is; ordered, so `a > b` means a is worse.
enum class Severity { info, warning, error };

/// The layers of the stack, in report order (root causes first).
enum class Layer { gpu, driver, toolkit, cudnn, framework, environment, platform };
inline constexpr std::array kLayers = {Layer::gpu,       Layer::driver,      Layer::toolkit, Layer::cudnn,
                                       Layer::framework, Layer::environment, Layer::platform};

/// Who installed a toolkit folder.
enum class InstallMethod { unknown, runfile, deb, pip, conda };

/// The NVIDIA kernel module's flavour ("" in the JSON when unknown).
enum class ModuleFlavour { unknown, proprietary, open };

constexpr std::string_view to_string(Severity s) {
    switch (s) {
        case Severity::info: return "info";
        case Severity::warning: return "warning";
        case Severity::error: return "error";
    }
    return "info";
}

constexpr std::string_view to_string(Layer l) {
    switch (l) {
        case Layer::gpu: return "gpu";
        case Layer::driver: return "driver";
        case Layer::toolkit: return "toolkit";
        case Layer::cudnn: return "cudnn";
        case Layer::framework: return "framework";
        case Layer::environment: return "environment";
        case Layer::platform: return "platform";
    }
    return "platform";
}

constexpr std::string_view to_string(InstallMethod m) {
    switch (m) {
        case InstallMethod::unknown: return "unknown";
        case InstallMethod::runfile: return "runfile";
        case InstallMethod::deb: return "deb";
        case InstallMethod::pip: return "pip";
        case InstallMethod::conda: return "conda";
    }
    return "unknown";
}

constexpr std::string_view to_string(ModuleFlavour f) {
    switch (f) {
        case ModuleFlavour::unknown: return "";
        case ModuleFlavour::proprietary: return "proprietary";
        case ModuleFlavour::open: return "open";
    }
    return "";
}

constexpr std::optional<Severity> severity_from(std::string_view s) {
    for (auto v : {Severity::info, Severity::warning, Severity::error})
        if (to_string(v) == s) return v;
    return std::nullopt;
}

constexpr std::optional<Layer> layer_from(std::string_view s) {
    for (auto v : kLayers)
        if (to_string(v) == s) return v;
    return std::nullopt;
}

constexpr std::optional<InstallMethod> install_method_from(std::string_view s) {
    for (auto v : {InstallMethod::unknown, InstallMethod::runfile, InstallMethod::deb, InstallMethod::pip, InstallMethod::conda})
        if (to_string(v) == s) return v;
    return std::nullopt;
}

/// Each by its spelling, for messages and test output.
inline std::ostream& operator<<(std::ostream& out, Severity v) { return out << to_string(v); }
inline std::ostream& operator<<(std::ostream& out, Layer v) { return out << to_string(v); }
inline std::ostream& operator<<(std::ostream& out, InstallMethod v) { return out << to_string(v); }
inline std::ostream& operator<<(std::ostream& out, ModuleFlavour v) { return out << to_string(v); }

}  // namespace cudoctor::snapshot
