#include "rules/rules.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "rules/ids.hpp"
#include "rules/rule_util.hpp"

namespace cudoctor::rules {
namespace detail {

snapshot::Finding finding(std::string title, std::string why, std::string fix, std::vector<snapshot::Evidence> evidence,
                          std::optional<snapshot::Severity> milder) {
    snapshot::Finding f;
    f.title = std::move(title);
    f.why = std::move(why);
    f.fix = std::move(fix);
    f.evidence = std::move(evidence);
    f.severity = milder.value_or(snapshot::Severity::error);  // evaluate() caps it at the rule's severity
    return f;
}

std::optional<int> major_of(const std::string& version) {
    auto v = Version::parse(version);
    if (!v) return std::nullopt;
    return v->major();
}

const snapshot::Toolkit* default_toolkit(const snapshot::Snapshot& snap) {
    for (const auto& tk : snap.toolkits)
        if (tk.is_default) return &tk;
    return nullptr;
}

const snapshot::Toolkit* path_toolkit(const snapshot::Snapshot& snap) {
    for (const auto& tk : snap.toolkits)
        if (tk.first_on_path) return &tk;
    return nullptr;
}

}  // namespace detail

namespace {

std::size_t layer_rank(snapshot::Layer layer) { return static_cast<std::size_t>(layer); }  // Layer is in report order

/// When both fire, the second is explained by the first: report it once, as a consequence.
struct CauseOf {
    RuleId cause;
    RuleId effect;
};
constexpr std::array<CauseOf, 13> kCauses = {{
    {"driver-module-not-built-for-kernel", "gpu-without-driver"},
    {"nvcc-shadowed", "cuda-home-invalid"},
    {"nouveau-loaded", "gpu-without-driver"},
    {"secure-boot-blocks-module", "gpu-without-driver"},
    {"wsl-linux-driver-installed", "driver-library-mismatch"},
    {"gpu-without-driver", "framework-cpu-only-build"},
    {"cuda-symlink-dangling", "nvcc-shadowed"},
    {"cuda-symlink-dangling", "cuda-home-invalid"},
    {"cuda-symlink-dangling", "toolkit-not-on-path"},
    {"toolkit-not-on-path", "cudart-not-loadable"},
    {"driver-library-mismatch", "driver-too-old-for-framework"},
    {"distro-cuda-toolkit-old", "nvcc-shadowed"},
    {"distro-cuda-toolkit-old", "extension-build-cuda-mismatch"},
}};

}  // namespace

const std::vector<Rule>& all_rules() {
    static const std::vector<Rule> rules = [] {
        std::vector<Rule> all;
        for (auto part : {detail::driver_rules(), detail::toolkit_rules(), detail::cudnn_rules(), detail::framework_rules(),
                          detail::environment_rules(), detail::container_rules(), detail::apt_rules()})
            all.insert(all.end(), part.begin(), part.end());
        std::stable_sort(all.begin(), all.end(), [](const Rule& a, const Rule& b) { return layer_rank(a.layer) < layer_rank(b.layer); });
        // A rule id or layer the registry (ids.hpp) does not know is a programming error: stop at
        // the first use, which every test run makes.
        for (const auto& r : all) {
            const auto* m = find_failure_mode(r.id);
            if (!m || m->id != r.id || m->named_by == NamedBy::cause || m->layer != r.layer) {
                const auto layer = snapshot::to_string(r.layer);
                std::fprintf(stderr, "cudoctor: rule '%.*s' (layer %.*s) is not registered as a rule in src/rules/ids.hpp\n",
                             static_cast<int>(r.id.size()), r.id.data(), static_cast<int>(layer.size()), layer.data());
                std::abort();
            }
        }
        return all;
    }();
    return rules;
}

const Rule* find_rule(std::string_view id) {
    for (const auto& r : all_rules())
        if (r.id == id) return &r;
    return nullptr;
}

std::vector<snapshot::Finding> evaluate(const snapshot::Snapshot& snap, const kb::Kb& kb) {
    std::vector<snapshot::Finding> found;
    for (const auto& rule : all_rules()) {
        for (auto& f : rule.check(snap, kb)) {
            f.id = std::string(rule.id);
            f.layer = rule.layer;
            f.severity = std::min(f.severity, rule.severity);  // a finding may be milder than its rule, never worse
            found.push_back(std::move(f));
        }
    }
    auto fired = [&](std::string_view id) { return std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.id == id; }); };
    for (auto& f : found) {
        for (const auto& [cause, effect] : kCauses)
            if (f.id == effect && fired(cause) && f.consequence_of.empty()) f.consequence_of = std::string(cause);
    }
    // Root causes in layer order, each followed by what it explains.
    std::vector<snapshot::Finding> ordered;
    std::function<void(const snapshot::Finding&)> place = [&](const snapshot::Finding& root) {
        ordered.push_back(root);
        for (const auto& f : found)
            if (f.consequence_of == root.id && std::find(ordered.begin(), ordered.end(), f) == ordered.end()) place(f);
    };
    for (const auto& f : found)
        if (f.consequence_of.empty()) place(f);
    for (const auto& f : found)  // a consequence whose cause chain loops (never in the table) still shows
        if (std::find(ordered.begin(), ordered.end(), f) == ordered.end()) ordered.push_back(f);
    return ordered;
}

bool worst_at_least(const std::vector<snapshot::Finding>& findings, snapshot::Severity threshold) {
    return std::any_of(findings.begin(), findings.end(), [&](const auto& f) { return f.severity >= threshold; });
}

}  // namespace cudoctor::rules
