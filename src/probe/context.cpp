#include "probe/context.hpp"

#include <chrono>
#include <cstdlib>

#include "common/text.hpp"
#include "common/worker.hpp"
#include "probe/ahead.hpp"
#include "probe/cuda_libs.hpp"
#include "snapshot/taken_at.hpp"

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

std::optional<Context::Text> Context::read_large(std::string_view probe, std::string_view path, std::size_t cap) {
    // Only a file whose mapping is sure to hold what read() would return: a regular file (never
    // /proc, whose sizes lie: read() is used there) of 1..cap bytes.
    if (auto mapped = host::MappedFile::open(host, path); mapped && mapped->size() > 0 && mapped->size() <= cap) {
        mapped->will_need(0, mapped->size(), true);  // read front to back: read ahead on a cold cache
        return Text(std::move(*mapped));
    }
    auto data = read(probe, path, cap);
    if (!data) return std::nullopt;
    return Text(std::move(*data));
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

namespace {

// The machine's own name: the kernel's (a live machine), else /etc/hostname (an image under
// --root has no /proc/sys). The first non-comment line, if it is a name (letters, digits, "-",
// "_", ".", at most 253 characters): anything else gives "" and a note, never a huge name.
std::string read_hostname(Context& ctx) {
    for (const char* file : {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
        auto data = ctx.read("platform", file, 4096);
        if (!data) continue;
        for (auto line : text::lines(*data)) {
            line = text::trim(line);
            if (line.empty() || line.front() == '#') continue;
            const bool clean =
                line.size() <= 253 &&
                line.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") == std::string_view::npos;
            if (clean) return std::string(line);
            ctx.note("platform", file, "not a host name: " + text::printable(line, 60));
            break;
        }
    }
    return "";
}

// Now, or CUDOCTOR_OVERRIDE_TIME of this process (the run's clock, not the image's: a test or
// a re-probe of an old image can pin it). An unparsable override is ignored with a note.
std::string read_taken_at(Context& ctx) {
    if (const char* o = std::getenv("CUDOCTOR_OVERRIDE_TIME"); o && *o) {
        if (auto t = snapshot::parse_utc(o)) {
            ctx.snap.overrides.push_back(std::string("CUDOCTOR_OVERRIDE_TIME=") + o);
            return snapshot::format_utc(*t);
        }
        ctx.note("platform", "CUDOCTOR_OVERRIDE_TIME", "ignored: not a UTC time like 2024-06-12T06:41:26Z");
    }
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return snapshot::format_utc(std::chrono::duration_cast<std::chrono::seconds>(now).count());
}

}  // namespace

snapshot::Snapshot probe_machine(const host::Host& host, const kb::Kb& kb, const Options& options) {
    Worker worker(options.second_core && second_cpu_available());  // made first, so it is joined last
    // One run stats the same path prefixes and lists the same folders many times (the loader's
    // folders, a toolkit's lib/): each is asked of the machine once.
    const auto cache = host.cache_scope();
    snapshot::Snapshot snap;
    snap.tool_version = CUDOCTOR_VERSION;
    snap.root = host.root();
    Context ctx(host, kb, options, snap);
    // On the second core, in the order the probes need them: the parts that need no earlier
    // probe, and the system library folders (the multiarch one holds thousands of names: the
    // largest listing of a run, 1 ms of it on #25's VM), which the driver probe lists first.
    Ahead ahead;
    if (worker.threaded()) {
        ahead.start(Part::loader_cache, ctx, worker);
        for (const auto dir : kSystemLibraryFolders) host.list_ahead(dir, worker);
        ahead.start(Part::package_logs, ctx, worker);
        ctx.ahead = &ahead;
        ctx.worker = &worker;
    }
    snap.taken_at = read_taken_at(ctx);
    snap.hostname = read_hostname(ctx);
    // Order matters: later probes use what earlier ones parsed (loader cache, dpkg, PATH, sites).
    probe_environment(ctx);
    if (ctx.ahead) ahead.start(Part::frameworks, ctx, worker);  // it needs only the Python sites
    probe_platform(ctx);
    probe_gpus(ctx);
    probe_driver(ctx);
    probe_toolkits(ctx);
    probe_cudnn(ctx);
    run_part(Part::frameworks, ctx);
    return snap;
}

}  // namespace cudoctor::probe
