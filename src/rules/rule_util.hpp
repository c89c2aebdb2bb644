#pragma once
// Small pieces shared by the rule files: building a Finding, reading versions off the Snapshot.
#include <optional>
#include <string>
#include <vector>

#include "common/version.hpp"
#include "rules/rules.hpp"

namespace cudoctor::rules::detail {

/// A finding of the rule being checked: evaluate() fills in its id and layer. Its severity is the
/// rule's own, or `milder` (never more than the rule's: evaluate() takes the milder of the two).
snapshot::Finding finding(std::string title, std::string why, std::string fix, std::vector<snapshot::Evidence> evidence = {},
                          std::optional<snapshot::Severity> milder = {});

using snapshot::driver_version;

using snapshot::is_system_toolkit;

/// "12.4.131" → 12; nullopt for an unparseable version.
std::optional<int> major_of(const std::string& version);

/// The toolkit /usr/local/cuda points to, or nullptr.
const snapshot::Toolkit* default_toolkit(const snapshot::Snapshot& snap);
/// The toolkit whose nvcc PATH finds first, or nullptr.
const snapshot::Toolkit* path_toolkit(const snapshot::Snapshot& snap);

/// "CUDA 12.4.131 (/usr/local/cuda-12.4)", for messages.
std::string toolkit_label(const snapshot::Toolkit& tk);

std::vector<Rule> driver_rules();
std::vector<Rule> toolkit_rules();
std::vector<Rule> cudnn_rules();
std::vector<Rule> framework_rules();
std::vector<Rule> environment_rules();
std::vector<Rule> container_rules();
std::vector<Rule> apt_rules();

}  // namespace cudoctor::rules::detail
