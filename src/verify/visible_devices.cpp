#include "verify/visible_devices.hpp"

#include <algorithm>
#include <cctype>

#include "common/text.hpp"

namespace cudoctor::verify {
namespace {

bool is_index(std::string_view s) {
    return !s.empty() && s.size() < 6 && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool is_uuid(std::string_view s) { return (s.starts_with("GPU-") || s.starts_with("MIG-")) && s.size() > 4; }

}  // namespace

VisibleDevices check_visible_devices(const std::optional<std::string>& value) {
    VisibleDevices v;
    if (!value) return v;
    v.set = true;
    v.value = *value;
    const auto trimmed = text::trim(*value);
    if (trimmed.empty()) {
        v.hides_all = true;
        v.problem = "it is set but empty";
        return v;
    }
    for (auto part : text::split(trimmed, ',')) {
        const auto entry = text::trim(part);
        if (!is_index(entry) && !is_uuid(entry)) {
            v.problem = "\"" + std::string(entry) + "\" is neither a GPU index nor a GPU UUID" +
                        (entry.starts_with("-") ? " (a negative index hides every GPU from it on)" : "") +
                        ", so the driver stops reading the list there";
            break;
        }
        v.entries.emplace_back(entry);
    }
    v.hides_all = v.entries.empty();
    return v;
}

Step visible_devices_step(const VisibleDevices& visible) {
    Step step{"cuda-visible-devices", "CUDA_VISIBLE_DEVICES lets CUDA see the GPUs"};
    if (!visible.set) {
        step.status = Status::pass;
        step.reason = "not set: CUDA sees every GPU";
        return step;
    }
    if (visible.problem.empty()) {
        step.status = Status::pass;
        step.reason = "CUDA_VISIBLE_DEVICES=" + visible.value + ": CUDA sees only these GPUs, renumbered from 0";
        return step;
    }
    step.status = Status::fail;
    step.reason = "CUDA_VISIBLE_DEVICES=\"" + visible.value + "\": " + visible.problem;
    step.cause = visible.hides_all ? "It hides every GPU: cuInit answers CUDA_ERROR_NO_DEVICE (100) and frameworks report no GPU "
                                     "(torch.cuda.is_available() is False) on a machine whose driver is fine."
                                   : "GPUs listed after that entry are hidden from CUDA.";
    step.fix = "unset CUDA_VISIBLE_DEVICES   # every GPU\nexport CUDA_VISIBLE_DEVICES=0   # or only the first one";
    return step;
}

}  // namespace cudoctor::verify
