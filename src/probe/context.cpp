#include "probe/context.hpp"

namespace cudoctor::probe {

void Context::note(std::string_view probe, std::string_view path, std::string_view message) {
    // The same trouble met by two probes (a looping CUDA_HOME that is also a /usr/local/cuda-*
    // folder) is one line for the user.
    for (const auto& n : snap.notes)
        if (n.path == path && n.message == message) return;
    snap.notes.push_back({std::string(probe), std::string(path), std::string(message)});
}

std::optional<std::string> Context::read(std::string_view probe, std::string_view path, std::size_t cap) {
    auto data = host.read_file(path, cap);
    if (data) return std::move(*data);
    if (data.error().code != Errc::not_found) note(probe, path, data.error().message);
    return std::nullopt;
}

std::optional<std::string> Context::dpkg_version(std::string_view name) const {
    for (const auto& p : dpkg) {
        if (p.name == name) return p.version;
    }
    return std::nullopt;
}

std::optional<formats::CondaPackage> Context::read_conda_meta(std::string_view probe, const std::string& file) {
    auto data = read(probe, file, 64u << 20);  // "files" lists can be long; the parser skips them
    if (!data) return std::nullopt;
    auto pkg = formats::parse_conda_meta(*data);
    if (!pkg) {
        note(probe, file, pkg.error().message);
        return std::nullopt;
    }
    return std::move(*pkg);
}

std::optional<std::string> Context::canonical(std::string_view probe, std::string_view path) {
    auto real = host.resolve(path);
    if (real) return std::move(*real);
    if (real.error().code == Errc::loop) note(probe, path, real.error().message);
    return std::nullopt;
}

snapshot::Snapshot probe_machine(const host::Host& host, const kb::Kb& kb, const Options& options) {
    snapshot::Snapshot snap;
    snap.tool_version = CUDOCTOR_VERSION;
    snap.root = host.root();
    Context ctx(host, kb, options, snap);
    // Order matters: later probes use what earlier ones parsed (loader cache, dpkg, PATH, sites).
    probe_environment(ctx);
    probe_platform(ctx);
    probe_gpus(ctx);
    probe_driver(ctx);
    probe_toolkits(ctx);
    probe_cudnn(ctx);
    probe_frameworks(ctx);
    return snap;
}

}  // namespace cudoctor::probe
