// libcudnn in an isolated child: cudnnGetVersion, cudnnGetCudartVersion and, where a GPU is
// usable, cudnnCreate / cudnnDestroy.
#include "driver/driver_calls.hpp"

namespace cudoctor::driver {
namespace {

using CudnnSize = std::size_t (*)();
using CudnnCreate = int (*)(void**);
using CudnnDestroy = int (*)(void*);
using CudnnErrorString = const char* (*)(int);

void cudnn_child(const ChildLog& log, const std::string& library, bool create) {
    void* lib = open_first(log, {library});
    if (!lib) return;
    nlohmann::json missing = nlohmann::json::array();
    auto sym = [&](const char* name) { return find_symbol(log, lib, name, missing); };
    auto get_version = reinterpret_cast<CudnnSize>(sym("cudnnGetVersion"));
    auto get_cudart = reinterpret_cast<CudnnSize>(sym("cudnnGetCudartVersion"));
    auto make = reinterpret_cast<CudnnCreate>(sym("cudnnCreate"));
    auto destroy = reinterpret_cast<CudnnDestroy>(sym("cudnnDestroy"));
    auto error_string = reinterpret_cast<CudnnErrorString>(sym("cudnnGetErrorString"));
    log.set("missing", missing);
    if (get_version) {
        log.call("cudnnGetVersion");
        const auto v = get_version();
        log.returned("cudnnGetVersion");
        log.set("version", v);
    }
    if (get_cudart) {
        log.call("cudnnGetCudartVersion");
        const auto v = get_cudart();
        log.returned("cudnnGetCudartVersion");
        log.set("cudart_version", v);
    }
    if (!create || !make) return;
    void* handle = nullptr;
    log.call("cudnnCreate");
    const int rc = make(&handle);
    log.returned("cudnnCreate");
    log.set("create_result", rc);
    if (error_string) {
        const char* text = error_string(rc);
        if (text) log.set("create_text", text);
    }
    if (rc == 0 && destroy) {
        log.call("cudnnDestroy");
        destroy(handle);
        log.returned("cudnnDestroy");
    }
}

}  // namespace

Expected<CudnnAnswer> query_cudnn(const std::string& library, bool create, std::chrono::milliseconds timeout) {
    auto child = run_child([&](const ChildLog& log) { cudnn_child(log, library, create); }, timeout);
    if (!child) return Unexpected<Error>(child.error());
    CudnnAnswer a;
    const auto& f = child->facts;
    a.tried = tried_list(*child);
    a.library = fact<std::string>(f, "library").value_or("");
    a.missing = fact<std::vector<std::string>>(f, "missing").value_or(std::vector<std::string>{});
    a.version = fact<std::size_t>(f, "version");
    a.cudart_version = fact<std::size_t>(f, "cudart_version");
    a.create_result = fact<int>(f, "create_result");
    a.create_text = fact<std::string>(f, "create_text").value_or("");
    a.child = std::move(*child);
    return a;
}

}  // namespace cudoctor::driver
