// NVRTC compile and driver-API launch in one isolated child.
#include "driver/nvrtc_calls.hpp"

#include <cstdint>
#include <vector>

#include "driver/kernel_source.hpp"

namespace cudoctor::driver {
namespace {

using Program = void*;
using NvrtcVersion = int (*)(int*, int*);
using NvrtcCreate = int (*)(Program*, const char*, const char*, int, const char* const*, const char* const*);
using NvrtcCompile = int (*)(Program, int, const char* const*);
using NvrtcSize = int (*)(Program, std::size_t*);
using NvrtcText = int (*)(Program, char*);
using NvrtcDestroy = int (*)(Program*);
using NvrtcErrorString = const char* (*)(int);

using CuInit = int (*)(unsigned);
using CuDeviceGet = int (*)(int*, int);
using CuRetain = int (*)(void**, int);
using CuRelease = int (*)(int);
using CuSetCurrent = int (*)(void*);
using CuModuleLoadData = int (*)(void**, const void*);
using CuModuleGetFunction = int (*)(void**, void*, const char*);
using CuModuleUnload = int (*)(void*);
using CuMemAlloc = int (*)(std::uintptr_t*, std::size_t);
using CuMemFree = int (*)(std::uintptr_t);
using CuMemsetD32 = int (*)(std::uintptr_t, unsigned, std::size_t);
using CuMemcpyDtoH = int (*)(void*, std::uintptr_t, std::size_t);
using CuLaunch = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**);
using CuSync = int (*)();
using CuGetErrorName = int (*)(int, const char**);

/// Launches `ptx` through the driver API and checks every value; facts prefixed "launch_".
void launch(const ChildLog& log, const std::string& ptx, const std::vector<std::string>& candidates) {
    void* lib = open_first(log, candidates, "driver_");
    if (!lib) return;
    nlohmann::json missing = nlohmann::json::array();
    auto sym = [&](const char* name) { return find_symbol(log, lib, name, missing); };
    auto init = reinterpret_cast<CuInit>(sym("cuInit"));
    auto device_get = reinterpret_cast<CuDeviceGet>(sym("cuDeviceGet"));
    auto retain = reinterpret_cast<CuRetain>(sym("cuDevicePrimaryCtxRetain"));
    auto release = reinterpret_cast<CuRelease>(sym("cuDevicePrimaryCtxRelease_v2"));
    auto set_current = reinterpret_cast<CuSetCurrent>(sym("cuCtxSetCurrent"));
    auto load = reinterpret_cast<CuModuleLoadData>(sym("cuModuleLoadData"));
    auto get_function = reinterpret_cast<CuModuleGetFunction>(sym("cuModuleGetFunction"));
    auto unload = reinterpret_cast<CuModuleUnload>(sym("cuModuleUnload"));
    auto mem_alloc = reinterpret_cast<CuMemAlloc>(sym("cuMemAlloc_v2"));
    auto mem_free = reinterpret_cast<CuMemFree>(sym("cuMemFree_v2"));
    auto memset32 = reinterpret_cast<CuMemsetD32>(sym("cuMemsetD32_v2"));
    auto copy_back = reinterpret_cast<CuMemcpyDtoH>(sym("cuMemcpyDtoH_v2"));
    auto launch_kernel = reinterpret_cast<CuLaunch>(sym("cuLaunchKernel"));
    auto synchronize = reinterpret_cast<CuSync>(sym("cuCtxSynchronize"));
    auto error_name = reinterpret_cast<CuGetErrorName>(sym("cuGetErrorName"));
    log.set("driver_missing", missing);
    if (!missing.empty()) return;

    // Each call in order; the first that fails is reported with its CUresult and stops the launch.
    auto step = [&](const char* name, int rc) {
        log.returned(name);
        if (rc == 0) return true;
        log.set("failed_call", name);
        log.set("failed_result", rc);
        const char* text = nullptr;
        if (error_name(rc, &text) == 0 && text) log.set("failed_name", text);
        return false;
    };
    int dev = 0;
    void* ctx = nullptr;
    void* module = nullptr;
    void* fn = nullptr;
    std::uintptr_t out = 0;
    log.call("cuInit");
    if (!step("cuInit", init(0))) return;
    log.call("cuDeviceGet");
    if (!step("cuDeviceGet", device_get(&dev, 0))) return;
    log.call("cuDevicePrimaryCtxRetain");
    if (!step("cuDevicePrimaryCtxRetain", retain(&ctx, dev))) return;
    log.call("cuCtxSetCurrent");
    if (!step("cuCtxSetCurrent", set_current(ctx))) return;
    log.call("cuModuleLoadData");
    if (!step("cuModuleLoadData", load(&module, ptx.c_str()))) return;
    log.call("cuModuleGetFunction");
    if (!step("cuModuleGetFunction", get_function(&fn, module, "cudoctor_fill"))) return;
    log.call("cuMemAlloc_v2");
    if (!step("cuMemAlloc_v2", mem_alloc(&out, kThreads * sizeof(unsigned)))) return;
    log.call("cuMemsetD32_v2");
    if (!step("cuMemsetD32_v2", memset32(out, kPoison, kThreads))) return;
    unsigned n = kThreads;
    void* params[] = {&out, &n};
    log.call("cuLaunchKernel");
    if (!step("cuLaunchKernel", launch_kernel(fn, kThreads / kBlock, 1, 1, kBlock, 1, 1, 0, nullptr, params, nullptr))) return;
    log.call("cuCtxSynchronize");
    if (!step("cuCtxSynchronize", synchronize())) return;
    std::vector<unsigned> host(kThreads);
    log.call("cuMemcpyDtoH_v2");
    if (!step("cuMemcpyDtoH_v2", copy_back(host.data(), out, kThreads * sizeof(unsigned)))) return;
    unsigned wrong = 0;
    for (unsigned i = 0; i < kThreads; ++i) {
        if (host[i] == expected_value(i)) continue;
        if (wrong++ == 0) {
            log.set("first_wrong", i);
            log.set("first_wrong_value", host[i]);
        }
    }
    log.set("threads", kThreads);
    log.set("wrong", wrong);
    mem_free(out);
    unload(module);
    release(dev);
}

void nvrtc_child(const ChildLog& log, const std::string& nvrtc, const std::string& arch, const std::vector<std::string>& candidates) {
    void* lib = open_first(log, {nvrtc});
    if (!lib) return;
    nlohmann::json missing = nlohmann::json::array();
    auto sym = [&](const char* name) { return find_symbol(log, lib, name, missing); };
    auto version = reinterpret_cast<NvrtcVersion>(sym("nvrtcVersion"));
    auto create = reinterpret_cast<NvrtcCreate>(sym("nvrtcCreateProgram"));
    auto compile = reinterpret_cast<NvrtcCompile>(sym("nvrtcCompileProgram"));
    auto log_size = reinterpret_cast<NvrtcSize>(sym("nvrtcGetProgramLogSize"));
    auto get_log = reinterpret_cast<NvrtcText>(sym("nvrtcGetProgramLog"));
    auto ptx_size = reinterpret_cast<NvrtcSize>(sym("nvrtcGetPTXSize"));
    auto get_ptx = reinterpret_cast<NvrtcText>(sym("nvrtcGetPTX"));
    auto destroy = reinterpret_cast<NvrtcDestroy>(sym("nvrtcDestroyProgram"));
    auto error_string = reinterpret_cast<NvrtcErrorString>(sym("nvrtcGetErrorString"));
    log.set("missing", missing);
    if (!missing.empty()) return;
    int major = 0, minor = 0;
    if (version(&major, &minor) == 0) log.set("nvrtc_version", std::to_string(major) + "." + std::to_string(minor));

    const std::string source(kKernelSource);
    Program prog = nullptr;
    log.call("nvrtcCreateProgram");
    const int created = create(&prog, source.c_str(), "cudoctor_fill.cu", 0, nullptr, nullptr);
    log.returned("nvrtcCreateProgram");
    if (created != 0) {
        log.set("compile_result", created);
        if (const char* t = error_string(created)) log.set("compile_text", t);
        return;
    }
    const std::string arch_option = "--gpu-architecture=" + arch;
    std::vector<const char*> options;
    if (!arch.empty()) options.push_back(arch_option.c_str());
    log.call("nvrtcCompileProgram");
    const int rc = compile(prog, static_cast<int>(options.size()), options.data());
    log.returned("nvrtcCompileProgram");
    log.set("compile_result", rc);
    if (const char* t = error_string(rc)) log.set("compile_text", t);
    std::size_t size = 0;
    if (log_size(prog, &size) == 0 && size > 1) {
        std::string text(size, '\0');
        if (get_log(prog, text.data()) == 0) log.set("log", text.c_str());
    }
    std::string ptx;
    if (rc == 0 && ptx_size(prog, &size) == 0 && size > 0) {
        ptx.assign(size, '\0');
        if (get_ptx(prog, ptx.data()) == 0) log.set("ptx_bytes", size);
        else ptx.clear();
    }
    destroy(&prog);
    if (!ptx.empty() && !candidates.empty()) launch(log, ptx, candidates);
}

}  // namespace

Expected<NvrtcAnswer> nvrtc_compile_and_launch(const std::string& nvrtc, const std::string& arch,
                                               const std::vector<std::string>& driver_candidates, std::chrono::milliseconds timeout) {
    auto child = run_child([&](const ChildLog& log) { nvrtc_child(log, nvrtc, arch, driver_candidates); }, timeout);
    if (!child) return Unexpected<Error>(child.error());
    NvrtcAnswer a;
    const auto& f = child->facts;
    a.tried = tried_list(*child);
    a.library = fact<std::string>(f, "library").value_or("");
    a.missing = fact<std::vector<std::string>>(f, "missing").value_or(std::vector<std::string>{});
    a.nvrtc_version = fact<std::string>(f, "nvrtc_version").value_or("");
    a.compile_result = fact<int>(f, "compile_result");
    a.compile_text = fact<std::string>(f, "compile_text").value_or("");
    a.log = fact<std::string>(f, "log").value_or("");
    a.ptx_bytes = fact<std::size_t>(f, "ptx_bytes").value_or(0);
    a.driver_tried = tried_list(*child, "driver_");
    a.driver_library = fact<std::string>(f, "driver_library").value_or("");
    auto driver_missing = fact<std::vector<std::string>>(f, "driver_missing").value_or(std::vector<std::string>{});
    if (!driver_missing.empty()) {
        a.failed_call = "dlsym";
        a.failed_name = "missing: " + driver_missing.front();
    }
    if (auto call = fact<std::string>(f, "failed_call")) a.failed_call = *call;
    a.failed_result = fact<int>(f, "failed_result");
    if (auto name = fact<std::string>(f, "failed_name")) a.failed_name = *name;
    a.threads = fact<unsigned>(f, "threads");
    a.wrong = fact<unsigned>(f, "wrong");
    a.first_wrong = fact<unsigned>(f, "first_wrong").value_or(0);
    a.first_wrong_value = fact<unsigned>(f, "first_wrong_value").value_or(0);
    a.child = std::move(*child);
    return a;
}

}  // namespace cudoctor::driver
