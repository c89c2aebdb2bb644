// cudnn_cuda.tsv, pytorch_cuda.tsv and tensorflow_cuda.tsv: which CUDA a library or framework
// release was built for.
#include <algorithm>
#include <set>

#include "common/text.hpp"
#include "kb/kb_data.hpp"

namespace cudoctor::kb {

namespace {

// "7.5;8.0;12.0+PTX" → {"7.5", "8.0", "12.0"}, ptx = true.
Expected<std::vector<std::string>> read_arch_list(const RowView& r, std::string_view column, bool& ptx) {
    std::vector<std::string> archs;
    ptx = false;
    const std::string cell = r.text(column);
    for (auto item : text::split(cell, ';')) {
        item = text::trim(item);
        if (item.empty()) continue;
        if (text::ends_with(item, "+PTX")) {
            item.remove_suffix(4);
            ptx = true;
        }
        if (!is_compute_capability(item)) {
            return r.error(column, "'" + text::printable(item) + "' is not a compute capability");
        }
        archs.emplace_back(item);
    }
    return archs;
}

}  // namespace

namespace detail {

Expected<void> read_cudnn(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"cudnn_first", "cudnn_last", "package_variant", "cuda_min", "cuda_max", "static_linking",
                                         "min_linux_driver", "min_windows_driver", "cc_min", "cc_max", "source", "confidence", "note"});
        !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        CudnnCudaSupport c;
        CUDOCTOR_KB_TRY(c.cudnn_first, r.version("cudnn_first"));
        CUDOCTOR_KB_TRY(c.cudnn_last, r.version("cudnn_last"));
        if (c.cudnn_last < c.cudnn_first) return r.error("cudnn_last", "lower than cudnn_first");
        c.package_variant = r.text("package_variant");
        CUDOCTOR_KB_TRY(c.cuda_min, r.version("cuda_min"));
        CUDOCTOR_KB_TRY(c.cuda_max, r.version("cuda_max"));
        if (c.cuda_max < c.cuda_min.truncated(c.cuda_max.size())) return r.error("cuda_max", "lower than cuda_min");
        CUDOCTOR_KB_TRY(c.static_linking, r.optional_yes_no("static_linking"));
        CUDOCTOR_KB_TRY(c.min_linux_driver, r.optional_version("min_linux_driver"));
        CUDOCTOR_KB_TRY(c.min_windows_driver, r.optional_version("min_windows_driver"));
        CUDOCTOR_KB_TRY(c.cc_min, r.compute_capability("cc_min"));
        CUDOCTOR_KB_TRY(c.cc_max, r.compute_capability("cc_max"));
        c.source = r.text("source");
        c.confidence = r.text("confidence");
        c.note = r.text("note");
        data.cudnn.push_back(std::move(c));
    }
    return {};
}

Expected<void> read_torch(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"torch", "variant", "cuda", "status", "bundled_cudnn", "cuda_archs", "cuda_archs_aarch64",
                                         "pypi_default", "python", "cxx_standard", "release_date", "confidence", "note"});
        !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        TorchWheel w;
        CUDOCTOR_KB_TRY(w.torch, r.version("torch"));
        w.variant = r.text("variant");
        if (!text::starts_with(w.variant, "cu")) return r.error("variant", "'" + w.variant + "' is not cuNNN");
        CUDOCTOR_KB_TRY(w.cuda, r.version("cuda"));
        w.status = r.text("status");
        if (!w.status.empty() && w.status != "stable" && w.status != "experimental") {
            return r.error("status", "'" + w.status + "' is not stable or experimental");
        }
        CUDOCTOR_KB_TRY(w.bundled_cudnn, r.optional_version("bundled_cudnn"));
        CUDOCTOR_KB_TRY(w.cuda_archs, read_arch_list(r, "cuda_archs", w.ptx));
        CUDOCTOR_KB_TRY(w.cuda_archs_aarch64, read_arch_list(r, "cuda_archs_aarch64", w.ptx_aarch64));
        std::optional<bool> pypi_default;
        CUDOCTOR_KB_TRY(pypi_default, r.optional_yes_no("pypi_default"));
        w.pypi_default = pypi_default.value_or(false);
        w.python = r.text("python");
        w.cxx_standard = r.text("cxx_standard");
        w.release_date = r.text("release_date");
        w.confidence = r.text("confidence");
        w.note = r.text("note");
        data.torch.push_back(std::move(w));
    }
    return {};
}

Expected<void> read_tensorflow(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"tensorflow", "package", "platform", "python", "compiler", "build_tools", "cudnn", "cuda", "note"});
        !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        TensorflowBuild t;
        CUDOCTOR_KB_TRY(t.tensorflow, r.version("tensorflow"));
        t.package = r.text("package");
        t.platform = r.text("platform");
        t.python = r.text("python");
        t.compiler = r.text("compiler");
        t.build_tools = r.text("build_tools");
        CUDOCTOR_KB_TRY(t.cudnn, r.version("cudnn"));
        CUDOCTOR_KB_TRY(t.cuda, r.version("cuda"));
        t.note = r.text("note");
        data.tensorflow.push_back(std::move(t));
    }
    return {};
}

}  // namespace detail

bool CudnnCudaSupport::covers_cuda(const Version& cuda) const {
    return cuda.truncated(cuda_min.size()) >= cuda_min && cuda.truncated(cuda_max.size()) <= cuda_max;
}

std::vector<CudnnCudaSupport> Kb::cudnn_builds(const Version& cudnn) const {
    std::vector<CudnnCudaSupport> rows;
    for (const auto& c : cudnn_table()) {
        if (cudnn.truncated(c.cudnn_first.size()) >= c.cudnn_first && cudnn.truncated(c.cudnn_last.size()) <= c.cudnn_last) {
            rows.push_back(c);
        }
    }
    return rows;
}

std::vector<int> Kb::cuda_majors_for_cudnn(const Version& cudnn) const {
    std::set<int> majors;
    for (const auto& c : cudnn_builds(cudnn)) {
        for (int m = c.cuda_min.major(); m <= c.cuda_max.major(); ++m) majors.insert(m);
    }
    return {majors.begin(), majors.end()};
}

std::optional<Version> Kb::newest_cudnn_for(const Version& cuda) const {
    std::optional<Version> newest;
    for (const auto& c : cudnn_table())
        if (c.covers_cuda(cuda) && (!newest || c.cudnn_last > *newest)) newest = c.cudnn_last;
    return newest;
}

std::optional<bool> Kb::cudnn_supports_cuda(const Version& cudnn, const Version& cuda) const {
    const auto rows = cudnn_builds(cudnn);
    if (rows.empty()) return std::nullopt;
    return std::any_of(rows.begin(), rows.end(), [&](const auto& c) { return c.covers_cuda(cuda); });
}

std::vector<TorchWheel> Kb::torch_wheels(const Version& torch) const {
    std::vector<TorchWheel> wheels;
    for (const auto& w : torch_table()) {
        if (torch.truncated(w.torch.size()) == w.torch) wheels.push_back(w);
    }
    return wheels;
}

std::optional<TorchWheel> Kb::torch_wheel(const Version& torch, std::string_view variant) const {
    for (auto& w : torch_wheels(torch)) {
        if (w.variant == variant) return w;
    }
    return std::nullopt;
}

std::optional<TensorflowBuild> Kb::tensorflow_tested_build(const Version& tensorflow, std::string_view platform) const {
    const std::string wanted = text::to_lower(platform);
    const auto* row = detail::release_row(
        tensorflow_table(), tensorflow, [](const TensorflowBuild& t) -> const Version& { return t.tensorflow; },
        [&](const TensorflowBuild& t) { return text::to_lower(t.platform) == wanted; });
    if (!row) return std::nullopt;
    return *row;
}

}  // namespace cudoctor::kb
