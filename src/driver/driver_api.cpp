// libcuda in an isolated child: the driver version first (it needs no cuInit), then cuInit(0),
// then every device's deviceQuery facts.
#include <dlfcn.h>

#include "driver/driver_calls.hpp"

namespace cudoctor::driver {
namespace {

using CuInit = int (*)(unsigned);
using CuIntOut = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetName = int (*)(char*, int, int);
using CuDeviceGetAttribute = int (*)(int*, int, int);
using CuDeviceTotalMem = int (*)(std::size_t*, int);
using CuGetErrorText = int (*)(int, const char**);

constexpr int kMaxDevices = 64;

void driver_child(const ChildLog& log, const std::vector<std::string>& candidates) {
    void* lib = open_first(log, candidates);
    if (!lib) return;
    nlohmann::json missing = nlohmann::json::array();
    auto sym = [&](const char* name) { return find_symbol(log, lib, name, missing); };
    auto init = reinterpret_cast<CuInit>(sym("cuInit"));
    auto get_version = reinterpret_cast<CuIntOut>(sym("cuDriverGetVersion"));
    auto get_count = reinterpret_cast<CuIntOut>(sym("cuDeviceGetCount"));
    auto get_device = reinterpret_cast<CuDeviceGet>(sym("cuDeviceGet"));
    auto get_name = reinterpret_cast<CuDeviceGetName>(sym("cuDeviceGetName"));
    auto get_attribute = reinterpret_cast<CuDeviceGetAttribute>(sym("cuDeviceGetAttribute"));
    auto total_mem = reinterpret_cast<CuDeviceTotalMem>(sym("cuDeviceTotalMem_v2"));
    auto error_name = reinterpret_cast<CuGetErrorText>(sym("cuGetErrorName"));
    auto error_text = reinterpret_cast<CuGetErrorText>(sym("cuGetErrorString"));
    log.set("missing", missing);

    if (get_version) {
        int v = 0;
        log.call("cuDriverGetVersion");
        const int rc = get_version(&v);
        log.returned("cuDriverGetVersion");
        if (rc == 0) log.set("driver_version", v);
    }
    if (!init) return;
    log.call("cuInit");
    const int rc = init(0);
    log.returned("cuInit");
    log.set("init_result", rc);
    const char* text = nullptr;
    if (error_name && error_name(rc, &text) == 0 && text) log.set("init_name", text);
    text = nullptr;
    if (error_text && error_text(rc, &text) == 0 && text) log.set("init_text", text);
    if (rc != 0 || !get_count) return;

    int count = 0;
    log.call("cuDeviceGetCount");
    const int count_rc = get_count(&count);
    log.returned("cuDeviceGetCount");
    if (count_rc != 0) return;
    log.set("device_count", count);
    nlohmann::json devices = nlohmann::json::array();
    for (int i = 0; i < count && i < kMaxDevices && get_device; ++i) {
        int dev = 0;
        if (get_device(&dev, i) != 0) continue;
        nlohmann::json d = nlohmann::json::object();
        char name[256] = {};
        log.call("cuDeviceGetName");
        if (get_name && get_name(name, sizeof name - 1, dev) == 0) d["name"] = name;
        log.returned("cuDeviceGetName");
        const std::pair<const char*, int> attributes[] = {{"cc_major", 75},  {"cc_minor", 76},         {"multiprocessors", 16},
                                                          {"clock_khz", 13}, {"memory_clock_khz", 36}, {"bus_width_bits", 37}};
        for (const auto& [key, attribute] : attributes) {
            int value = 0;
            if (get_attribute && get_attribute(&value, attribute, dev) == 0) d[key] = value;
        }
        std::size_t bytes = 0;
        if (total_mem && total_mem(&bytes, dev) == 0) d["memory_bytes"] = bytes;
        devices.push_back(d);
        log.set("devices", devices);
    }
}

}  // namespace

Expected<DriverApiAnswer> query_driver_api(const std::vector<std::string>& candidates, std::chrono::milliseconds timeout) {
    auto child = run_child([&](const ChildLog& log) { driver_child(log, candidates); }, timeout);
    if (!child) return Unexpected<Error>(child.error());
    DriverApiAnswer a;
    const auto& f = child->facts;
    a.tried = tried_list(*child);
    a.library = fact<std::string>(f, "library").value_or("");
    a.missing = fact<std::vector<std::string>>(f, "missing").value_or(std::vector<std::string>{});
    a.init_result = fact<int>(f, "init_result");
    a.init_name = fact<std::string>(f, "init_name").value_or("");
    a.init_text = fact<std::string>(f, "init_text").value_or("");
    a.driver_version = fact<int>(f, "driver_version");
    a.device_count = fact<int>(f, "device_count");
    if (auto it = f.find("devices"); it != f.end() && it->is_array()) {
        for (const auto& d : *it) {
            DriverDevice dev;
            dev.name = fact<std::string>(d, "name").value_or("");
            dev.cc_major = fact<int>(d, "cc_major").value_or(-1);
            dev.cc_minor = fact<int>(d, "cc_minor").value_or(-1);
            dev.multiprocessors = fact<int>(d, "multiprocessors").value_or(0);
            dev.clock_khz = fact<int>(d, "clock_khz").value_or(0);
            dev.memory_clock_khz = fact<int>(d, "memory_clock_khz").value_or(0);
            dev.bus_width_bits = fact<int>(d, "bus_width_bits").value_or(0);
            dev.memory_bytes = fact<std::uint64_t>(d, "memory_bytes").value_or(0);
            a.devices.push_back(std::move(dev));
        }
    }
    a.child = std::move(*child);
    return a;
}

std::string cuda_version_text(int encoded) {
    if (encoded <= 0) return {};
    return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

std::string cudnn_version_text(std::size_t encoded) {
    if (encoded >= 90000)
        return std::to_string(encoded / 10000) + "." + std::to_string(encoded % 10000 / 100) + "." + std::to_string(encoded % 100);
    return std::to_string(encoded / 1000) + "." + std::to_string(encoded % 1000 / 100) + "." + std::to_string(encoded % 100);
}

}  // namespace cudoctor::driver
