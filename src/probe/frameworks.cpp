// Frameworks probe: PyTorch, TensorFlow, JAX (+ its CUDA plugin), CuPy, ONNX Runtime and Triton,
// read from the files they install — never imported (importing torch takes seconds).
#include <algorithm>

#include "common/text.hpp"
#include "common/version.hpp"
#include "formats/python_meta.hpp"
#include "gpucode/scan.hpp"
#include "probe/context.hpp"

namespace cudoctor::probe {
namespace {

constexpr std::string_view kFrameworksProbe = "frameworks";

/// The dist-info folders of one site folder, listed once: name (lower case, '_' for '-') → folder.
class DistInfos {
  public:
    DistInfos(Context& ctx, const std::string& site) : m_ctx(ctx), m_site(site) {
        auto names = ctx.host.list_dir(site);
        if (!names) return;
        for (const auto& n : *names) {
            if (!n.ends_with(".dist-info")) continue;
            const auto dash = n.find('-');
            if (dash == std::string::npos) continue;
            m_entries.push_back({text::to_lower(n.substr(0, dash)), n.substr(dash + 1, n.size() - dash - 1 - 10), n});
        }
    }
    struct Entry {
        std::string dist, version, folder;
    };
    const Entry* find(std::string_view dist) const {
        for (const auto& e : m_entries)
            if (e.dist == dist) return &e;
        return nullptr;
    }
    const Entry* find_prefix(std::string_view prefix) const {
        for (const auto& e : m_entries)
            if (e.dist.starts_with(prefix)) return &e;
        return nullptr;
    }
    std::optional<formats::DistMetadata> metadata(const Entry& e) const {
        const std::string path = host::join(m_site, e.folder + "/METADATA");
        auto data = m_ctx.read(kFrameworksProbe, path, 8u << 20);
        if (!data) return std::nullopt;
        auto md = formats::parse_dist_metadata(*data);
        if (!md) {
            m_ctx.note(kFrameworksProbe, path, md.error().message);
            return std::nullopt;
        }
        return std::move(*md);
    }

  private:
    Context& m_ctx;
    std::string m_site;
    std::vector<Entry> m_entries;
};

/// "nvidia-cudnn-cu12 (==9.1.0.70) ; platform_system == \"Linux\"" → "nvidia-cudnn-cu12==9.1.0.70".
std::string requirement(std::string_view req) {
    if (auto semi = req.find(';'); semi != std::string_view::npos) req = req.substr(0, semi);
    std::string out;
    for (char c : req)
        if (c != ' ' && c != '(' && c != ')') out += c;
    return out;
}

void add_wheels(const DistInfos& infos, const DistInfos::Entry* entry, snapshot::Framework& fw) {
    if (!entry) return;
    auto md = infos.metadata(*entry);
    if (!md) return;
    for (const auto& r : md->requires_dist) {
        if (!text::starts_with(text::to_lower(r), "nvidia-")) continue;
        if (text::contains(r, "extra ==") || text::contains(r, "extra==")) continue;
        fw.nvidia_wheels.push_back(requirement(r));
        if (fw.cudnn.empty() && text::starts_with(r, "nvidia-cudnn")) {
            auto eq = fw.nvidia_wheels.back().find("==");
            if (eq != std::string::npos) fw.cudnn = fw.nvidia_wheels.back().substr(eq + 2);
        }
    }
}

/// Reads the GPU code of the framework's main CUDA library (headers of the registered fatbins
/// only: milliseconds even for a 1 GB libtorch_cuda.so). `candidates` are glob patterns
/// {folder, pattern} below the site folder, most telling first: the first pattern that matches
/// decides, and among its matches the largest file.
void read_binary_archs(Context& ctx, const PythonSite& site, snapshot::Framework& fw,
                       std::initializer_list<std::pair<std::string_view, std::string_view>> candidates) {
    std::string best;
    std::uint64_t best_size = 0;
    for (const auto& [dir, pattern] : candidates) {
        for (const auto& path : ctx.host.glob(host::join(site.dir, dir), pattern)) {
            auto info = ctx.host.stat(path);
            if (info && info->type == host::FileType::regular && info->size > best_size) {
                best = path;
                best_size = info->size;
            }
        }
        if (!best.empty()) break;
    }
    if (best.empty()) return;
    auto scan = gpucode::scan_file(ctx.host, best, gpucode::ScanDepth::registered);
    if (!scan) {
        ctx.note(kFrameworksProbe, best, scan.error().message);
        return;
    }
    for (const auto& p : scan->problems) ctx.note(kFrameworksProbe, best, p);
    std::string list;
    for (const auto& t : gpucode::summarize(*scan)) {
        if (t.target.kind != formats::FatbinKind::sass && t.target.kind != formats::FatbinKind::ptx) continue;
        fw.binary_archs.push_back(t.name);
        list += (list.empty() ? "" : " ") + t.name;
    }
    if (fw.binary_archs.empty()) {
        ctx.note(kFrameworksProbe, best, "carries no GPU code (no SASS or PTX in its fatbins)");
        return;
    }
    fw.binary_archs_source = best;
    fw.evidence.push_back({best, "fatbin headers: " + list});
}

void probe_torch(Context& ctx, const PythonSite& site, const DistInfos& infos) {
    const std::string path = host::join(site.dir, "torch/version.py");
    auto data = ctx.read(kFrameworksProbe, path, 1u << 20);
    if (!data) return;
    auto v = formats::parse_torch_version_py(*data);
    if (!v) {
        ctx.note(kFrameworksProbe, path, v.error().message);
        return;
    }
    snapshot::Framework fw{"torch", v->version, v->cuda, {}, site.dir, site.interpreter, {}, {}, {}, {}, {}};
    fw.evidence.push_back({path, "__version__ " + v->version + ", cuda " + v->cuda.value_or("None")});
    add_wheels(infos, infos.find("torch"), fw);
    if (fw.cudnn.empty()) {
        if (const auto* c = infos.find_prefix("nvidia_cudnn_cu")) fw.cudnn = c->version;
    }
    if (fw.cuda) read_binary_archs(ctx, site, fw, {{"torch/lib", "libtorch_cuda*.so"}, {"torch/lib", "libc10_cuda.so"}});
    ctx.snap.frameworks.push_back(std::move(fw));
}

void probe_tensorflow(Context& ctx, const PythonSite& site, const DistInfos& infos) {
    const std::string path = host::join(site.dir, "tensorflow/python/platform/build_info.py");
    auto data = ctx.read(kFrameworksProbe, path, 1u << 20);
    if (!data) return;
    auto info = formats::parse_tf_build_info(*data);
    if (!info) {
        ctx.note(kFrameworksProbe, path, info.error().message);
        return;
    }
    snapshot::Framework fw{"tensorflow", {}, {}, info->cudnn_version, site.dir, site.interpreter, {}, {}, {}, {}, {}};
    const DistInfos::Entry* dist = nullptr;
    for (const char* name : {"tensorflow", "tensorflow_gpu", "tensorflow_cpu", "tf_nightly", "tensorflow_intel"}) {
        if ((dist = infos.find(name))) break;
    }
    if (dist) fw.version = dist->version;
    if (info->is_cuda_build.value_or(!info->cuda_version.empty()) && !info->cuda_version.empty()) fw.cuda = info->cuda_version;
    fw.cuda_archs = info->cuda_compute_capabilities;
    fw.evidence.push_back({path, "cuda_version " + info->cuda_version + ", cudnn_version " + info->cudnn_version});
    add_wheels(infos, dist, fw);
    if (fw.cuda)
        read_binary_archs(ctx, site, fw,
                          {{"tensorflow/python", "_pywrap_tensorflow_internal.so"},
                           {"tensorflow", "libtensorflow_framework.so*"},
                           {"tensorflow", "libtensorflow_cc.so*"}});
    ctx.snap.frameworks.push_back(std::move(fw));
}

void probe_jax(Context& ctx, const PythonSite& site, const DistInfos& infos) {
    const std::string path = host::join(site.dir, "jax/version.py");
    auto data = ctx.read(kFrameworksProbe, path, 1u << 20);
    if (!data) return;
    snapshot::Framework fw{"jax", {}, {}, {}, site.dir, site.interpreter, {}, {}, {}, {}, {}};
    // A released wheel says its exact version in _release_version; _version is the base.
    if (auto r = formats::find_python_string_assignment(*data, "_release_version")) fw.version = *r;
    else if (auto v = formats::find_python_string_assignment(*data, "_version")) fw.version = *v;
    else if (const auto* d = infos.find("jax")) fw.version = d->version;
    fw.evidence.push_back({path, fw.version});
    // The CUDA build is a plugin: jax_cuda12_plugin / jax_cuda12_pjrt (or the old jaxlib+cuda12 wheel).
    for (const auto& e : {infos.find_prefix("jax_cuda"), infos.find("jaxlib")}) {
        if (!e) continue;
        auto pos = e->dist.find("cuda");
        if (e->dist.starts_with("jax_cuda") && pos != std::string::npos) {
            fw.cuda = e->dist.substr(pos + 4, e->dist.find('_', pos) - pos - 4);
            fw.evidence.push_back({host::join(site.dir, e->folder), e->dist + " " + e->version});
            add_wheels(infos, e, fw);
            read_binary_archs(ctx, site, fw,
                              {{"jax_plugins/xla_cuda12", "*.so"}, {"jax_plugins/xla_cuda13", "*.so"}, {"jaxlib/cuda", "*.so"}});
            break;
        }
        if (auto plus = e->version.find("+cuda"); plus != std::string::npos) {  // jaxlib 0.4.28+cuda12.cudnn89
            auto rest = e->version.substr(plus + 5);
            fw.cuda = rest.substr(0, rest.find('.'));
            fw.evidence.push_back({host::join(site.dir, e->folder), e->version});
        }
    }
    ctx.snap.frameworks.push_back(std::move(fw));
}

void probe_simple(Context& ctx, const PythonSite& site, const DistInfos& infos) {
    // CuPy's distribution name carries its CUDA: cupy_cuda12x, cupy_cuda11x, cupy_cuda102 …
    if (const auto* e = infos.find_prefix("cupy_cuda")) {
        snapshot::Framework fw{"cupy", e->version, {}, {}, site.dir, site.interpreter, {}, {}, {}, {}, {}};
        auto digits = e->dist.substr(9);
        if (digits.ends_with("x")) fw.cuda = digits.substr(0, digits.size() - 1);
        else if (digits.size() >= 3) fw.cuda = digits.substr(0, digits.size() - 1) + "." + digits.back();
        fw.evidence.push_back({host::join(site.dir, e->folder), e->dist});
        ctx.snap.frameworks.push_back(std::move(fw));
    }
    for (const char* name : {"onnxruntime_gpu", "onnxruntime"}) {
        const auto* e = infos.find(name);
        if (!e) continue;
        snapshot::Framework fw{"onnxruntime", e->version, {}, {}, site.dir, site.interpreter, {}, {}, {}, {}, {}};
        // A GPU build ships the CUDA execution provider; its CUDA major is not recorded on disk.
        if (ctx.host.exists(host::join(site.dir, "onnxruntime/capi/libonnxruntime_providers_cuda.so"))) fw.cuda = "";
        fw.evidence.push_back({host::join(site.dir, e->folder), e->dist + " " + e->version});
        add_wheels(infos, e, fw);
        if (fw.cuda) read_binary_archs(ctx, site, fw, {{"onnxruntime/capi", "libonnxruntime_providers_cuda.so"}});
        ctx.snap.frameworks.push_back(std::move(fw));
        break;
    }
    if (const auto* e = infos.find("triton")) {
        snapshot::Framework fw{"triton", e->version, {}, {}, site.dir, site.interpreter, {}, {}, {}, {}, {}};
        fw.evidence.push_back({host::join(site.dir, e->folder), e->version});
        ctx.snap.frameworks.push_back(std::move(fw));
    }
}

}  // namespace

void probe_frameworks(Context& ctx) {
    for (const auto& site : ctx.python_sites) {
        DistInfos infos(ctx, site.dir);
        probe_torch(ctx, site, infos);
        probe_tensorflow(ctx, site, infos);
        probe_jax(ctx, site, infos);
        probe_simple(ctx, site, infos);
    }
}

}  // namespace cudoctor::probe
