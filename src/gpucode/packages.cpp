#include "gpucode/packages.hpp"

#include "formats/python_meta.hpp"

namespace cudoctor::gpucode {

std::optional<BuildEvidence> package_build_evidence(const host::Host& host, std::string_view site, std::string_view package) {
    if (package != "torch") return std::nullopt;
    auto text = host.read_file(host::join(site, "torch/version.py"), 1u << 20);
    if (!text) return std::nullopt;
    auto v = formats::parse_torch_version_py(*text);
    if (!v) return std::nullopt;
    if (v->cuda) return BuildEvidence{true, "torch/version.py: cuda = '" + *v->cuda + "'"};
    if (v->hip) return BuildEvidence{false, "torch/version.py: cuda = None, hip = '" + *v->hip + "' (a ROCm build)"};
    return BuildEvidence{false, "torch/version.py: cuda = None (a CPU-only build)"};
}

}  // namespace cudoctor::gpucode
