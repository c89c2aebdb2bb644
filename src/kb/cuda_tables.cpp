// cuda_driver.tsv, cuda_gcc.tsv and cuda_arch_support.tsv: toolkit ↔ driver, host compiler,
// and architecture support.
#include <algorithm>

#include "common/text.hpp"
#include "kb/kb_data.hpp"

namespace cudoctor::kb {

namespace detail {

Expected<void> read_toolkits(const Table& table, Kb::Data& data) {
    if (auto ok =
            table.require_columns({"toolkit", "label", "min_linux_driver", "min_windows_driver", "driver_branch", "minor_compat_floor_linux",
                                   "minor_compat_floor_windows", "runfile", "runfile_driver", "confidence", "note"});
        !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        ToolkitRelease t;
        CUDOCTOR_KB_TRY(t.toolkit, r.version("toolkit"));
        t.label = r.text("label");
        CUDOCTOR_KB_TRY(t.min_linux_driver, r.optional_version("min_linux_driver"));
        CUDOCTOR_KB_TRY(t.min_windows_driver, r.optional_version("min_windows_driver"));
        t.driver_branch = r.text("driver_branch");
        CUDOCTOR_KB_TRY(t.minor_compat_floor_linux, r.optional_version("minor_compat_floor_linux"));
        CUDOCTOR_KB_TRY(t.minor_compat_floor_windows, r.optional_version("minor_compat_floor_windows"));
        t.runfile = r.text("runfile");
        CUDOCTOR_KB_TRY(t.runfile_driver, r.optional_version("runfile_driver"));
        t.confidence = r.text("confidence");
        t.note = r.text("note");
        data.toolkits.push_back(std::move(t));
    }
    return {};
}

Expected<void> read_components(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"component", "version", "release", "source"}); !ok) return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        ComponentRelease c;
        c.component = r.text("component");
        if (c.component.empty()) return r.error("component", "empty");
        CUDOCTOR_KB_TRY(c.version, r.version("version"));
        CUDOCTOR_KB_TRY(c.release, r.version("release"));
        c.source = r.text("source");
        data.components.push_back(std::move(c));
    }
    return {};
}

Expected<void> read_compilers(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"toolkit_from", "releases", "max_gcc", "max_clang", "min_gcc", "min_clang", "confidence", "note"});
        !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        HostCompilerLimits c;
        CUDOCTOR_KB_TRY(c.toolkit_from, r.version("toolkit_from"));
        c.releases = r.text("releases");
        CUDOCTOR_KB_TRY(c.max_gcc, r.optional_int("max_gcc"));
        CUDOCTOR_KB_TRY(c.max_clang, r.optional_int("max_clang"));
        CUDOCTOR_KB_TRY(c.min_gcc, r.optional_int("min_gcc"));
        CUDOCTOR_KB_TRY(c.min_clang, r.optional_int("min_clang"));
        c.confidence = r.text("confidence");
        c.note = r.text("note");
        data.compilers.push_back(std::move(c));
    }
    return {};
}

Expected<void> read_archs(const Table& table, Kb::Data& data) {
    if (auto ok = table.require_columns({"sm", "compute_capability", "architecture", "example_products", "first_cuda", "last_cuda",
                                         "deprecated_in", "removed_in", "nvcc_13_0_accepts", "confidence", "note"});
        !ok)
        return ok;
    for (const auto& row : table.rows()) {
        const RowView r(table, row);
        ArchSupport a;
        a.sm = r.text("sm");
        if (!text::starts_with(a.sm, "sm_")) return r.error("sm", "'" + text::printable(a.sm) + "' is not sm_NN");
        CUDOCTOR_KB_TRY(a.compute_capability, r.compute_capability("compute_capability"));
        if (a.compute_capability.empty()) return r.error("compute_capability", "empty");
        a.architecture = r.text("architecture");
        a.example_products = r.text("example_products");
        CUDOCTOR_KB_TRY(a.first_cuda, r.optional_version("first_cuda"));
        CUDOCTOR_KB_TRY(a.last_cuda, r.optional_version("last_cuda"));
        CUDOCTOR_KB_TRY(a.deprecated_in, r.optional_version("deprecated_in"));
        CUDOCTOR_KB_TRY(a.removed_in, r.optional_version("removed_in"));
        CUDOCTOR_KB_TRY(a.nvcc_13_0_accepts, r.optional_yes_no("nvcc_13_0_accepts"));
        a.confidence = r.text("confidence");
        a.note = r.text("note");
        data.archs.push_back(std::move(a));
    }
    return {};
}

}  // namespace detail

namespace {

bool has_driver(const ToolkitRelease& t) { return t.min_linux_driver.has_value(); }
constexpr auto kAnyRow = [](const auto&) { return true; };
const Version& toolkit_key(const ToolkitRelease& t) { return t.toolkit; }
const Version& compiler_key(const HostCompilerLimits& c) { return c.toolkit_from; }

const std::optional<Version>& min_driver_of(const ToolkitRelease& t, DriverOs os) {
    return os == DriverOs::windows_driver ? t.min_windows_driver : t.min_linux_driver;
}

}  // namespace

std::optional<Version> Kb::max_cuda_for(const Version& driver, DriverOs os) const {
    std::optional<Version> best;
    for (const auto& t : toolkit_releases()) {
        const auto& min = min_driver_of(t, os);
        if (!min || *min > driver) continue;
        const Version minor = t.toolkit.truncated(2);
        if (!best || minor > *best) best = minor;
    }
    return best;
}

std::optional<Version> Kb::min_driver_for(const Version& toolkit, DriverOs os) const {
    // The row is chosen by the Linux column in both cases: Table 3 lists both drivers per release.
    const auto* row = detail::release_row(toolkit_releases(), toolkit, toolkit_key, has_driver);
    if (!row) return std::nullopt;
    return min_driver_of(*row, os);
}

std::optional<ToolkitRelease> Kb::toolkit_release(const Version& toolkit) const {
    const auto* row = detail::release_row(toolkit_releases(), toolkit, toolkit_key, kAnyRow);
    if (!row) return std::nullopt;
    return *row;
}

std::vector<Version> Kb::releases_with_component(std::string_view component, const Version& version) const {
    std::vector<Version> out;
    for (const auto& c : component_table())
        if (c.component == component && c.version == version) out.push_back(c.release);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::optional<Version> Kb::minor_compat_floor(int cuda_major, DriverOs os) const {
    for (const auto& t : toolkit_releases()) {
        const auto& floor = os == DriverOs::windows_driver ? t.minor_compat_floor_windows : t.minor_compat_floor_linux;
        if (t.toolkit.major() == cuda_major && floor) return floor;
    }
    return std::nullopt;
}

std::optional<HostCompilerLimits> Kb::host_compiler_limits(const Version& toolkit) const {
    const auto* row = detail::release_row(host_compiler_table(), toolkit, compiler_key, kAnyRow);
    if (!row) return std::nullopt;
    return *row;
}

std::optional<int> Kb::max_gcc_for(const Version& toolkit) const {
    const auto limits = host_compiler_limits(toolkit);
    return limits ? limits->max_gcc : std::nullopt;
}

std::optional<int> Kb::max_clang_for(const Version& toolkit) const {
    const auto limits = host_compiler_limits(toolkit);
    return limits ? limits->max_clang : std::nullopt;
}

std::optional<ArchSupport> Kb::arch_support(std::string_view compute_capability) const {
    const bool by_sm = text::starts_with(compute_capability, "sm_");
    for (const auto& a : arch_table()) {
        if ((by_sm ? a.sm : a.compute_capability) == compute_capability) return a;
    }
    return std::nullopt;
}

std::optional<Kb::CudaRange> Kb::toolkits_supporting(std::string_view compute_capability) const {
    const auto arch = arch_support(compute_capability);
    if (!arch || !arch->first_cuda) return std::nullopt;
    return CudaRange{*arch->first_cuda, arch->last_cuda};
}

}  // namespace cudoctor::kb
