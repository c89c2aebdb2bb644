#include <fmt/format.h>

#include "rules/rule_util.hpp"

namespace cudoctor::rules::detail {

std::string toolkit_label(const snapshot::Toolkit& tk) {
    return fmt::format("CUDA {} ({})", tk.version.empty() ? "(version unknown)" : tk.version, tk.path);
}

}  // namespace cudoctor::rules::detail
