// libnvidia-ml in an isolated child: nvmlInit_v2, the driver and CUDA versions, the devices.
#include "driver/driver_calls.hpp"
#include "driver/nvml_api.hpp"

namespace cudoctor::driver {
namespace {

void nvml_child(const ChildLog& log, const std::vector<std::string>& candidates) {
    void* lib = open_first(log, candidates);
    if (!lib) return;
    nlohmann::json missing = nlohmann::json::array();
    auto sym = [&](const char* name) { return find_symbol(log, lib, name, missing); };
    const auto core = nvml::bind_core(log, lib, missing);
    auto driver_version = reinterpret_cast<nvml::SystemText>(sym("nvmlSystemGetDriverVersion"));
    auto cuda_version = reinterpret_cast<nvml::SystemInt>(sym("nvmlSystemGetCudaDriverVersion"));
    auto capability = reinterpret_cast<nvml::Capability>(sym("nvmlDeviceGetCudaComputeCapability"));
    log.set("missing", missing);
    if (!core.init) return;

    log.call("nvmlInit_v2");
    const int rc = core.init();
    log.returned("nvmlInit_v2");
    log.set("init_result", rc);
    if (core.error_string) {
        const char* text = core.error_string(rc);
        if (text) log.set("init_text", text);
    }
    if (rc != 0) return;
    char buf[96] = {};
    log.call("nvmlSystemGetDriverVersion");
    if (driver_version && driver_version(buf, 80) == 0) log.set("driver_version", buf);
    log.returned("nvmlSystemGetDriverVersion");
    int cuda = 0;
    if (cuda_version && cuda_version(&cuda) == 0) log.set("cuda_version", cuda);
    unsigned n = 0;
    log.call("nvmlDeviceGetCount_v2");
    const int count_rc = core.count ? core.count(&n) : -1;
    log.returned("nvmlDeviceGetCount_v2");
    if (count_rc == 0) log.set("device_count", n);
    nlohmann::json devices = nlohmann::json::array();
    for (unsigned i = 0; count_rc == 0 && core.handle_by_index && i < n && i < nvml::kMaxDevices; ++i) {
        nvml::Device dev = nullptr;
        if (core.handle_by_index(i, &dev) != 0) continue;
        nlohmann::json d = nlohmann::json::object();
        char text[96] = {};
        if (core.name && core.name(dev, text, sizeof text) == 0) d["name"] = text;
        char id[96] = {};
        if (core.uuid && core.uuid(dev, id, sizeof id) == 0) d["uuid"] = id;
        int major = -1, minor = -1;
        if (capability && capability(dev, &major, &minor) == 0) {
            d["cc_major"] = major;
            d["cc_minor"] = minor;
        }
        nvml::Memory m{};
        if (core.memory && core.memory(dev, &m) == 0) d["memory_total"] = m.total;
        devices.push_back(d);
        log.set("devices", devices);
    }
    if (core.shutdown) core.shutdown();
}

}  // namespace

Expected<NvmlAnswer> query_nvml(const std::vector<std::string>& candidates, std::chrono::milliseconds timeout) {
    auto child = run_child([&](const ChildLog& log) { nvml_child(log, candidates); }, timeout);
    if (!child) return Unexpected<Error>(child.error());
    NvmlAnswer a;
    const auto& f = child->facts;
    a.tried = tried_list(*child);
    a.library = fact<std::string>(f, "library").value_or("");
    a.missing = fact<std::vector<std::string>>(f, "missing").value_or(std::vector<std::string>{});
    a.init_result = fact<int>(f, "init_result");
    a.init_text = fact<std::string>(f, "init_text").value_or("");
    a.driver_version = fact<std::string>(f, "driver_version").value_or("");
    a.cuda_version = fact<int>(f, "cuda_version");
    a.device_count = fact<unsigned>(f, "device_count");
    if (auto it = f.find("devices"); it != f.end() && it->is_array()) {
        for (const auto& d : *it) {
            NvmlDevice dev;
            dev.name = fact<std::string>(d, "name").value_or("");
            dev.uuid = fact<std::string>(d, "uuid").value_or("");
            dev.cc_major = fact<int>(d, "cc_major").value_or(-1);
            dev.cc_minor = fact<int>(d, "cc_minor").value_or(-1);
            dev.memory_total = fact<std::uint64_t>(d, "memory_total").value_or(0);
            a.devices.push_back(std::move(dev));
        }
    }
    a.child = std::move(*child);
    return a;
}

}  // namespace cudoctor::driver
