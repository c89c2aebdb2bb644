#include "verify/causes.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace cudoctor::verify {
namespace {

struct Code {
    int code;
    std::string_view name;
    std::string_view meaning;
};

constexpr std::array kCuResults = {
    Code{0, "CUDA_SUCCESS", ""},
    Code{1, "CUDA_ERROR_INVALID_VALUE", ""},
    Code{2, "CUDA_ERROR_OUT_OF_MEMORY", "the GPU has no memory left: another process holds it (nvidia-smi lists them)"},
    Code{3, "CUDA_ERROR_NOT_INITIALIZED", ""},
    Code{4, "CUDA_ERROR_DEINITIALIZED", ""},
    Code{34, "CUDA_ERROR_STUB_LIBRARY",
         "the CUDA toolkit's stub libcuda (lib64/stubs/libcuda.so, whose SONAME is libcuda.so.1) was loaded instead of the "
         "driver's: the stubs folder is on LD_LIBRARY_PATH or in /etc/ld.so.conf.d. It exists only for linking and answers "
         "every call with this error"},
    Code{36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", "the program calls an API newer than this driver"},
    Code{46, "CUDA_ERROR_DEVICE_UNAVAILABLE",
         "the GPU is in exclusive-process or prohibited compute mode and busy (nvidia-smi -q -d COMPUTE shows the mode)"},
    Code{100, "CUDA_ERROR_NO_DEVICE",
         "the driver is loaded but CUDA sees no GPU: CUDA_VISIBLE_DEVICES hides them, the GPU fell off the bus (Xid 79), or "
         "the container was started without GPU access (--gpus all)"},
    Code{101, "CUDA_ERROR_INVALID_DEVICE", ""},
    Code{200, "CUDA_ERROR_INVALID_IMAGE", "the driver rejected the compiled kernel image"},
    Code{209, "CUDA_ERROR_NO_BINARY_FOR_GPU",
         "the program carries no kernel image (SASS) for this GPU's architecture and no PTX the driver could compile"},
    Code{218, "CUDA_ERROR_INVALID_PTX", "the driver could not compile the PTX"},
    Code{222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
         "the PTX was written by a compiler newer than this driver: it can only JIT PTX of the CUDA version it runs"},
    Code{304, "CUDA_ERROR_OPERATING_SYSTEM", "an operating-system call inside the driver failed (permissions on /dev/nvidia*)"},
    Code{500, "CUDA_ERROR_NOT_FOUND", ""},
    Code{802, "CUDA_ERROR_SYSTEM_NOT_READY",
         "a driver service the system needs is not running: on NVSwitch machines (HGX, DGX) the fabric manager"},
    Code{803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
         "the user-space driver libraries and the loaded kernel module come from different driver versions"},
    Code{804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
         "a forward-compatibility libcuda (the cuda-compat package) was loaded on a GPU that does not support it: only "
         "data-centre GPUs do"},
    Code{999, "CUDA_ERROR_UNKNOWN",
         "often /dev/nvidia-uvm is missing (the nvidia_uvm module is not loaded) or the module and libraries differ"},
};

constexpr std::array<std::pair<int, std::string_view>, 12> kNvmlResults = {{
    {0, "NVML_SUCCESS"},
    {1, "NVML_ERROR_UNINITIALIZED"},
    {2, "NVML_ERROR_INVALID_ARGUMENT"},
    {3, "NVML_ERROR_NOT_SUPPORTED"},
    {4, "NVML_ERROR_NO_PERMISSION"},
    {9, "NVML_ERROR_DRIVER_NOT_LOADED"},
    {12, "NVML_ERROR_LIBRARY_NOT_FOUND"},
    {15, "NVML_ERROR_GPU_IS_LOST"},
    {17, "NVML_ERROR_OPERATING_SYSTEM"},
    {18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH"},
    {28, "NVML_ERROR_GPU_NOT_FOUND"},
    {999, "NVML_ERROR_UNKNOWN"},
}};

const Code* find_cu(int code) {
    auto it = std::find_if(kCuResults.begin(), kCuResults.end(), [&](const Code& c) { return c.code == code; });
    return it == kCuResults.end() ? nullptr : &*it;
}

}  // namespace

const snapshot::Finding* fired_rule(const snapshot::Snapshot& snap, const std::vector<std::string_view>& ids) {
    auto find = [&](std::string_view id) -> const snapshot::Finding* {
        for (const auto& f : snap.findings)
            if (f.id == id) return &f;
        return nullptr;
    };
    for (auto id : ids) {
        const snapshot::Finding* f = find(id);
        if (!f) continue;
        for (int hops = 0; hops < 8 && !f->consequence_of.empty(); ++hops) {
            const snapshot::Finding* root = find(f->consequence_of);
            if (!root) break;
            f = root;
        }
        return f;
    }
    return nullptr;
}

void blame_rule(Step& step, const snapshot::Finding& finding) {
    step.status = Status::fail;
    step.cause = finding.title + ". " + finding.why;
    step.fix = finding.fix;
    step.rule = finding.id;
}

RuleIds::RuleIds(std::initializer_list<rules::RuleId> ids) {
    for (auto id : ids) m_ids.push_back(id);
}

RuleIds::RuleIds(const std::vector<std::string_view>& ids) {
    for (auto id : ids)
        if (rules::is_rule_id(id)) m_ids.push_back(id);
}

void blame(Step& step, const snapshot::Snapshot& snap, const RuleIds& rule_ids, std::string cause, std::string fix) {
    if (const auto* f = fired_rule(snap, rule_ids.ids())) return blame_rule(step, *f);
    step.status = Status::fail;
    step.cause = std::move(cause);
    step.fix = std::move(fix);
    step.rule.clear();
}

std::string cu_result_name(int code) {
    if (const Code* c = find_cu(code)) return std::string(c->name);
    return "CUresult " + std::to_string(code);
}

std::string cu_result_meaning(int code) {
    if (const Code* c = find_cu(code)) return std::string(c->meaning);
    return {};
}

std::string nvml_result_name(int code) {
    for (const auto& [c, name] : kNvmlResults)
        if (c == code) return std::string(name);
    return "nvmlReturn_t " + std::to_string(code);
}

}  // namespace cudoctor::verify
