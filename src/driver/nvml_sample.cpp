#include "driver/nvml_sample.hpp"

#include <cstring>

#include <nlohmann/json.hpp>

#include "driver/child_log.hpp"
#include "driver/nvml_api.hpp"

namespace cudoctor::driver {
namespace {

constexpr unsigned kMaxProcesses = 256;

void sample_child(const ChildLog& log, const std::vector<std::string>& candidates) {
    void* lib = open_first(log, candidates);
    if (!lib) return;
    nlohmann::json missing = nlohmann::json::array();
    auto sym = [&](const char* name) { return find_symbol(log, lib, name, missing); };
    const auto core = nvml::bind_core(log, lib, missing);
    auto pci = reinterpret_cast<nvml::PciInfoOf>(sym("nvmlDeviceGetPciInfo_v3"));
    auto utilization = reinterpret_cast<nvml::UtilizationOf>(sym("nvmlDeviceGetUtilizationRates"));
    auto temperature = reinterpret_cast<nvml::Temperature>(sym("nvmlDeviceGetTemperature"));
    auto power = reinterpret_cast<nvml::Power>(sym("nvmlDeviceGetPowerUsage"));
    auto clock = reinterpret_cast<nvml::Clock>(sym("nvmlDeviceGetClockInfo"));
    auto compute = reinterpret_cast<nvml::Processes>(sym("nvmlDeviceGetComputeRunningProcesses_v3"));
    auto graphics = reinterpret_cast<nvml::Processes>(sym("nvmlDeviceGetGraphicsRunningProcesses_v3"));
    log.set("missing", missing);
    if (!core.init || !core.count || !core.handle_by_index) return;

    log.call("nvmlInit_v2");
    const int rc = core.init();
    log.returned("nvmlInit_v2");
    log.set("init_result", rc);
    if (rc != 0) {
        const char* text = core.error_string ? core.error_string(rc) : nullptr;
        log.set("init_text", text ? text : "");
        return;
    }
    unsigned n = 0;
    log.call("nvmlDeviceGetCount_v2");
    const int count_rc = core.count(&n);
    log.returned("nvmlDeviceGetCount_v2");
    nlohmann::json gpus = nlohmann::json::array(), processes = nlohmann::json::array();
    for (unsigned i = 0; count_rc == 0 && i < n && i < nvml::kMaxDevices; ++i) {
        nvml::Device dev = nullptr;
        if (core.handle_by_index(i, &dev) != 0) continue;
        nlohmann::json g = {{"index", i}};
        char text[96] = {};
        if (core.name && core.name(dev, text, sizeof text) == 0) g["name"] = text;
        char id[96] = {};
        if (core.uuid && core.uuid(dev, id, sizeof id) == 0) g["uuid"] = id;
        nvml::PciInfo info{};
        if (pci && pci(dev, &info) == 0) g["pci"] = std::string(info.bus_id, strnlen(info.bus_id, sizeof info.bus_id));
        log.call("nvmlDeviceGetMemoryInfo");
        nvml::Memory m{};
        if (core.memory && core.memory(dev, &m) == 0) {
            g["memory_used"] = m.used;
            g["memory_total"] = m.total;
        }
        log.returned("nvmlDeviceGetMemoryInfo");
        nvml::Utilization u{};
        if (utilization && utilization(dev, &u) == 0) {
            g["util_gpu"] = u.gpu;
            g["util_memory"] = u.memory;
        }
        unsigned value = 0;
        if (temperature && temperature(dev, nvml::kTemperatureGpu, &value) == 0) g["temperature_c"] = value;
        if (power && power(dev, &value) == 0) g["power_mw"] = value;
        if (clock && clock(dev, nvml::kClockSm, &value) == 0) g["sm_clock_mhz"] = value;
        if (clock && clock(dev, nvml::kClockMem, &value) == 0) g["memory_clock_mhz"] = value;
        gpus.push_back(g);
        for (auto list : {compute, graphics}) {
            if (!list) continue;
            static nvml::ProcessInfo infos[kMaxProcesses];
            unsigned found = kMaxProcesses;
            log.call("nvmlDeviceGet*RunningProcesses_v3");
            const int list_rc = list(dev, &found, infos);
            log.returned("nvmlDeviceGet*RunningProcesses_v3");
            if (list_rc != 0) continue;
            for (unsigned k = 0; k < found && k < kMaxProcesses; ++k) {
                bool seen = false;
                for (const auto& p : processes) seen |= p["gpu"] == i && p["pid"] == infos[k].pid;
                if (seen) continue;
                nlohmann::json p = {{"gpu", i}, {"pid", infos[k].pid}};
                if (infos[k].used_gpu_memory != nvml::kValueNotAvailable) p["used_memory"] = infos[k].used_gpu_memory;
                processes.push_back(p);
            }
        }
    }
    log.set("gpus", gpus);
    log.set("processes", processes);
    if (core.shutdown) core.shutdown();
    log.done();
}

template <class T>
void read_into(const nlohmann::json& j, const char* key, std::optional<T>& out) {
    if (auto v = fact<T>(j, key)) out = *v;
}

}  // namespace

Expected<Reading> sample_nvml(const std::vector<std::string>& candidates, std::chrono::milliseconds timeout) {
    auto child = run_child([&](const ChildLog& log) { sample_child(log, candidates); }, timeout);
    if (!child) return Unexpected<Error>(child.error());
    Reading r;
    const auto& f = child->facts;
    r.library = fact<std::string>(f, "library").value_or("");
    r.missing = fact<std::vector<std::string>>(f, "missing").value_or(std::vector<std::string>{});
    r.tried = tried_list(*child);
    r.init_result = fact<int>(f, "init_result");
    if (auto it = f.find("gpus"); it != f.end() && it->is_array()) {
        for (const auto& j : *it) {
            GpuReading g;
            g.index = fact<unsigned>(j, "index").value_or(0);
            g.name = fact<std::string>(j, "name").value_or("");
            g.uuid = fact<std::string>(j, "uuid").value_or("");
            g.pci = fact<std::string>(j, "pci").value_or("");
            read_into(j, "memory_used", g.memory_used);
            read_into(j, "memory_total", g.memory_total);
            read_into(j, "util_gpu", g.util_gpu);
            read_into(j, "util_memory", g.util_memory);
            read_into(j, "temperature_c", g.temperature_c);
            read_into(j, "power_mw", g.power_mw);
            read_into(j, "sm_clock_mhz", g.sm_clock_mhz);
            read_into(j, "memory_clock_mhz", g.memory_clock_mhz);
            r.gpus.push_back(std::move(g));
        }
    }
    if (auto it = f.find("processes"); it != f.end() && it->is_array()) {
        for (const auto& j : *it) {
            ProcessReading p;
            p.gpu = fact<unsigned>(j, "gpu").value_or(0);
            p.pid = fact<unsigned>(j, "pid").value_or(0);
            read_into(j, "used_memory", p.used_memory);
            r.processes.push_back(std::move(p));
        }
    }
    // The child always ends its log ("done") when it returns: a missing library and a failed
    // nvmlInit_v2 are answers, a hang or a crash is not.
    const bool answered = f.contains("gpus");
    if (!child->complete) {
        r.trouble = child->trouble();
        if (r.trouble.empty()) r.trouble = "the NVML sample ended before answering";
    } else if (r.library.empty()) {
        r.trouble = r.tried.empty() ? "libnvidia-ml.so.1 could not be loaded" : "libnvidia-ml.so.1 could not be loaded: " + r.tried.back();
    } else if (r.init_result && *r.init_result != 0) {
        r.trouble = "nvmlInit_v2 failed with " + std::to_string(*r.init_result) + " (" + fact<std::string>(f, "init_text").value_or("") + ")";
    } else if (!answered) {
        r.trouble = "the NVML library lacks nvmlInit_v2 or the device functions";
    }
    return r;
}

}  // namespace cudoctor::driver
