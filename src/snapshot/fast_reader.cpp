#include "snapshot/fast_reader.hpp"

#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <simdjson.h>

#include "snapshot/validate.hpp"

// The rules this reader keeps, so that every answer it gives is machine_from_json_text's answer:
//  * every byte of the document is checked: members it does not know are walked and every value
//    in them read (On-Demand would otherwise skip them unchecked), and nothing may follow the
//    document;
//  * a member's JSON type must be exactly the C++ one (a string for a string, an integer in
//    range for an int, true/false for a bool, null or the type for an optional): nlohmann would
//    convert 1.5 or true to an int, or throw, and the slow reader says which;
//  * a member that appears twice (nlohmann keeps the last), an enum spelled by a non-string, a
//    schema other than 1 as an integer, a "kind" other than "cudoctor-machine" or, without a
//    "kind", a "levels" member or a missing required member: all go to the slow reader.
// Anything simdjson refuses (invalid JSON, a number out of range, too deep) goes there as well.
// Each struct reader lists the members in the order of its NLOHMANN_DEFINE_TYPE_* line in
// snapshot_json.cpp; tests/unit/fleet_fast_reader_test.cpp checks each one is read. A member the
// JSON lacks is set to its default after the object (so a reused Snapshot carries nothing over).

namespace cudoctor::snapshot {
namespace {
// Named, so that a unity build's other files in this namespace keep their own `read`s.
namespace fast {
namespace od = simdjson::ondemand;

static_assert(std::is_same_v<std::size_t, std::uint64_t>, "Platform::wsl_memory_line is read as a uint64");

/// Thrown where the document needs the slow reader; caught once, in FastReader::parse.
struct NeedsSlowReader {};
[[noreturn]] void slow() { throw NeedsSlowReader{}; }

/// Deeper than any snapshot member; unknown members nested deeper go to the slow reader.
constexpr int kMaxDepth = 64;

void check_value(od::value& v, int depth);

void check_object(od::object object, int depth) {
    for (auto member : object) {
        od::field field = std::move(member);
        (void)std::string_view(field.unescaped_key());
        check_value(field.value(), depth + 1);
    }
}

// Reads a value nothing keeps, to the last byte: what makes it invalid JSON for nlohmann makes
// it an error here.
void check_value(od::value& v, int depth) {
    if (depth > kMaxDepth) slow();
    switch (od::json_type(v.type())) {
        case od::json_type::object: check_object(v.get_object(), depth); break;
        case od::json_type::array:
            for (auto element : od::array(v.get_array())) {
                od::value e = std::move(element);  // NOLINT(performance-move-const-arg): the conversion is &&-qualified
                check_value(e, depth + 1);
            }
            break;
        case od::json_type::string: (void)std::string_view(v.get_string()); break;
        case od::json_type::number: (void)od::number(v.get_number()); break;
        case od::json_type::boolean: (void)bool(v.get_bool()); break;
        case od::json_type::null:
            if (!bool(v.is_null())) slow();
            break;
    }
}

void read(od::value& v, std::string& out) {
    const std::string_view s = v.get_string();
    out.assign(s.data(), s.size());
}
void read(od::value& v, bool& out) { out = v.get_bool(); }
void read(od::value& v, int& out) {
    const std::int64_t n = v.get_int64();
    if (n < INT_MIN || n > INT_MAX) slow();
    out = static_cast<int>(n);
}
void read(od::value& v, std::uint64_t& out) { out = v.get_uint64(); }

std::string_view enum_text(od::value& v) {
    if (od::json_type(v.type()) != od::json_type::string) slow();  // nlohmann: the first entry
    return v.get_string();
}
// An unknown spelling reads as the first entry of the NLOHMANN_JSON_SERIALIZE_ENUM table.
void read(od::value& v, Severity& out) { out = severity_from(enum_text(v)).value_or(Severity::info); }
void read(od::value& v, Layer& out) { out = layer_from(enum_text(v)).value_or(Layer::platform); }
void read(od::value& v, InstallMethod& out) { out = install_method_from(enum_text(v)).value_or(InstallMethod::unknown); }
void read(od::value& v, ModuleFlavour& out) {
    const std::string_view s = enum_text(v);
    out = s == "proprietary" ? ModuleFlavour::proprietary : s == "open" ? ModuleFlavour::open : ModuleFlavour::unknown;
}

void read(od::value& v, Evidence& out);
void read(od::value& v, ProbeNote& out);
void read(od::value& v, Gpu& out);
void read(od::value& v, DriverLibrary& out);
void read(od::value& v, PackageEvent& out);
void read(od::value& v, Driver& out);
void read(od::value& v, ToolkitComponent& out);
void read(od::value& v, Toolkit& out);
void read(od::value& v, CudnnFlattenedChain& out);
void read(od::value& v, Cudnn& out);
void read(od::value& v, Framework& out);
void read(od::value& v, Python& out);
void read(od::value& v, LibraryPathEntry& out);
void read(od::value& v, LoaderEntry& out);
void read(od::value& v, StartupLine& out);
void read(od::value& v, Environment& out);
void read(od::value& v, DkmsModule& out);
void read(od::value& v, AptSource& out);
void read(od::value& v, HeldPackage& out);
void read(od::value& v, AptPin& out);
void read(od::value& v, Platform& out);
void read(od::value& v, Finding& out);

template <class T>
void read(od::value& v, std::optional<T>& out) {
    if (od::json_type(v.type()) == od::json_type::null) {
        if (!bool(v.is_null())) slow();
        out.reset();
        return;
    }
    if (!out) out.emplace();
    read(v, *out);
}

// Elements already there are read into (their strings keep their memory), the rest dropped.
template <class T>
void read(od::value& v, std::vector<T>& out) {
    std::size_t n = 0;
    for (auto element : od::array(v.get_array())) {
        od::value e = std::move(element);  // NOLINT(performance-move-const-arg): the conversion is &&-qualified
        if (n < out.size()) read(e, out[n]);
        else read(e, out.emplace_back());
        ++n;
    }
    out.resize(n);
}

/// What a member missing from the JSON reads as: its value in a default-constructed struct
/// (NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT).
template <class S>
const S& default_of() {
    static const S value{};
    return value;
}

// To the default, keeping the memory a string or list already has.
void reset(std::string& member, const std::string& default_value) { member.assign(default_value); }
template <class T>
void reset(std::vector<T>& member, const std::vector<T>& default_value) {
    if (default_value.empty()) member.clear();
    else member = default_value;
}
template <class T>
void reset(T& member, const T& default_value) {
    member = default_value;
}

/// The members of struct S, named in turn by its reader: `f("source", &Evidence::source)(…)`.
/// Offered one JSON member, it reads the value into the member of that name; in the reset pass
/// after the last JSON member, it sets every member the JSON did not have to its default, so a
/// struct read into a used one is exactly the struct read into a new one.
template <class S>
class Members {
  public:
    Members(S& out, std::string_view key, od::value* value, std::uint64_t& seen) : m_out(out), m_key(key), m_value(value), m_seen(seen) {}

    template <class T>
    Members& operator()(std::string_view name, T S::*member) {
        const std::uint64_t bit = std::uint64_t{1} << m_index++;
        if (m_value == nullptr) {
            if (!(m_seen & bit)) reset(m_out.*member, default_of<S>().*member);
        } else if (!m_read && m_key == name) {
            take(bit, m_out.*member);
        }
        return *this;
    }
    /// A JSON member that is no member of S ("kind"): read, not reset.
    template <class T>
    Members& operator()(std::string_view name, T& value) {
        const std::uint64_t bit = std::uint64_t{1} << m_index++;
        if (m_value != nullptr && !m_read && m_key == name) take(bit, value);
        return *this;
    }
    [[nodiscard]] bool is(std::string_view name) const { return m_value != nullptr && m_key == name; }
    [[nodiscard]] bool read_it() const { return m_read; }

  private:
    template <class T>
    void take(std::uint64_t bit, T& target) {
        if (m_seen & bit) slow();  // a duplicate: nlohmann keeps the last one
        m_seen |= bit;
        read(*m_value, target);
        m_read = true;
    }

    S& m_out;
    std::string_view m_key;
    od::value* m_value;  ///< nullptr in the reset pass
    std::uint64_t& m_seen;
    unsigned m_index = 0;
    bool m_read = false;
};

template <class S, class Names>
void read_object(od::object object, S& out, Names&& names) {
    std::uint64_t seen = 0;
    for (auto each : object) {
        od::field field = std::move(each);
        const std::string_view key = field.unescaped_key();
        Members<S> member(out, key, &field.value(), seen);
        names(member);
        if (!member.read_it()) check_value(field.value(), 1);
    }
    Members<S> rest(out, {}, nullptr, seen);
    names(rest);
}

template <class S, class Names>
void read_struct(od::value& v, S& out, Names&& names) {
    read_object(v.get_object(), out, std::forward<Names>(names));
}

void read(od::value& v, Evidence& out) {
    read_struct(v, out, [](auto& f) { f("source", &Evidence::source)("detail", &Evidence::detail); });
}
void read(od::value& v, ProbeNote& out) {
    read_struct(v, out, [](auto& f) { f("probe", &ProbeNote::probe)("path", &ProbeNote::path)("message", &ProbeNote::message); });
}
void read(od::value& v, Gpu& out) {
    read_struct(v, out, [](auto& f) {
        f("bus_id", &Gpu::bus_id)("pci_device_id", &Gpu::pci_device_id)("pci_class", &Gpu::pci_class)("subsystem_id", &Gpu::subsystem_id)(
            "name", &Gpu::name)("chip", &Gpu::chip)("architecture", &Gpu::architecture)("compute_capability", &Gpu::compute_capability)(
            "name_source", &Gpu::name_source)("bound_driver", &Gpu::bound_driver)("evidence", &Gpu::evidence);
    });
}
void read(od::value& v, DriverLibrary& out) {
    read_struct(v, out, [](auto& f) { f("name", &DriverLibrary::name)("path", &DriverLibrary::path)("version", &DriverLibrary::version); });
}
void read(od::value& v, PackageEvent& out) {
    read_struct(v, out, [](auto& f) {
        f("when", &PackageEvent::when)("action", &PackageEvent::action)("package", &PackageEvent::package)("old_version",
                                                                                                           &PackageEvent::old_version)(
            "new_version", &PackageEvent::new_version)("by", &PackageEvent::by)("source", &PackageEvent::source);
    });
}
void read(od::value& v, Driver& out) {
    read_struct(v, out, [](auto& f) {
        f("kernel_module_version", &Driver::kernel_module_version)("flavour", &Driver::flavour)(
            "kernel_module_compiler", &Driver::kernel_module_compiler)("modules_known", &Driver::modules_known)(
            "loaded_modules", &Driver::loaded_modules)("user_space_versions", &Driver::user_space_versions)("libraries", &Driver::libraries)(
            "max_cuda", &Driver::max_cuda)("max_cuda_source", &Driver::max_cuda_source)("package_events", &Driver::package_events)(
            "packages", &Driver::packages)("windows_version", &Driver::windows_version)("evidence", &Driver::evidence);
    });
}
void read(od::value& v, ToolkitComponent& out) {
    read_struct(v, out, [](auto& f) { f("name", &ToolkitComponent::name)("version", &ToolkitComponent::version); });
}
void read(od::value& v, Toolkit& out) {
    read_struct(v, out, [](auto& f) {
        f("version", &Toolkit::version)("version_source", &Toolkit::version_source)("release", &Toolkit::release)(
            "release_source", &Toolkit::release_source)("components", &Toolkit::components)("path", &Toolkit::path)(
            "install_method", &Toolkit::install_method)("has_nvcc", &Toolkit::has_nvcc)("nvcc_path", &Toolkit::nvcc_path)(
            "is_default", &Toolkit::is_default)("first_on_path", &Toolkit::first_on_path)("on_path", &Toolkit::on_path)(
            "max_gcc", &Toolkit::max_gcc)("max_gcc_source", &Toolkit::max_gcc_source)("found_by", &Toolkit::found_by)(
            "lib_dir", &Toolkit::lib_dir)("cudart_soname", &Toolkit::cudart_soname)("cudart_loader_visible",
                                                                                    &Toolkit::cudart_loader_visible)("evidence",
                                                                                                                     &Toolkit::evidence);
    });
}
void read(od::value& v, CudnnFlattenedChain& out) {
    read_struct(v, out, [](auto& f) {
        f("real_file", &CudnnFlattenedChain::real_file)("names", &CudnnFlattenedChain::names)("copies", &CudnnFlattenedChain::copies)(
            "size", &CudnnFlattenedChain::size);
    });
}
void read(od::value& v, Cudnn& out) {
    read_struct(v, out, [](auto& f) {
        f("version", &Cudnn::version)("path", &Cudnn::path)("header_version", &Cudnn::header_version)(
            "library_versions", &Cudnn::library_versions)("location", &Cudnn::location)("cuda_major", &Cudnn::cuda_major)(
            "loader_visible", &Cudnn::loader_visible)("flattened", &Cudnn::flattened)("evidence", &Cudnn::evidence);
    });
}
void read(od::value& v, Framework& out) {
    read_struct(v, out, [](auto& f) {
        f("name", &Framework::name)("version",
                                    &Framework::version)("cuda", &Framework::cuda)("cudnn", &Framework::cudnn)("python", &Framework::python)(
            "interpreter", &Framework::interpreter)("cuda_archs", &Framework::cuda_archs)("nvidia_wheels", &Framework::nvidia_wheels)(
            "evidence", &Framework::evidence)("binary_archs", &Framework::binary_archs)("binary_archs_source",
                                                                                        &Framework::binary_archs_source);
    });
}
void read(od::value& v, Python& out) {
    read_struct(v, out, [](auto& f) {
        f("interpreter", &Python::interpreter)("version", &Python::version)("site", &Python::site)("has_headers", &Python::has_headers);
    });
}
void read(od::value& v, LibraryPathEntry& out) {
    read_struct(v, out, [](auto& f) {
        f("path", &LibraryPathEntry::path)("exists", &LibraryPathEntry::exists)("empty", &LibraryPathEntry::empty)(
            "real_path", &LibraryPathEntry::real_path)("cuda_libraries", &LibraryPathEntry::cuda_libraries);
    });
}
void read(od::value& v, LoaderEntry& out) {
    read_struct(v, out, [](auto& f) {
        f("soname", &LoaderEntry::soname)("path", &LoaderEntry::path)("arch", &LoaderEntry::arch)("real_dir", &LoaderEntry::real_dir);
    });
}
void read(od::value& v, StartupLine& out) {
    read_struct(v, out, [](auto& f) {
        f("file", &StartupLine::file)("line", &StartupLine::line)("text", &StartupLine::text)("name", &StartupLine::name)(
            "value", &StartupLine::value)("keeps_old", &StartupLine::keeps_old)("nvcc_before", &StartupLine::nvcc_before)(
            "appended_dir", &StartupLine::appended_dir)("missing_toolkits", &StartupLine::missing_toolkits);
    });
}
void read(od::value& v, Environment& out) {
    read_struct(v, out, [](auto& f) {
        f("path", &Environment::path)("nvcc_on_path", &Environment::nvcc_on_path)("nvcc_on_path_real", &Environment::nvcc_on_path_real)(
            "ld_library_path", &Environment::ld_library_path)("cuda_home", &Environment::cuda_home)("cuda_path", &Environment::cuda_path)(
            "cuda_visible_devices", &Environment::cuda_visible_devices)("cuda_symlink", &Environment::cuda_symlink)(
            "cuda_symlink_dangling", &Environment::cuda_symlink_dangling)("ld_so_conf_dirs", &Environment::ld_so_conf_dirs)(
            "loader_cache_format", &Environment::loader_cache_format)("loader_cache", &Environment::loader_cache)(
            "conda_envs", &Environment::conda_envs)("active_conda_env", &Environment::active_conda_env)("virtual_env",
                                                                                                        &Environment::virtual_env)(
            "cuda_launch_blocking", &Environment::cuda_launch_blocking)("startup_lines",
                                                                        &Environment::startup_lines)("evidence", &Environment::evidence);
    });
}
void read(od::value& v, DkmsModule& out) {
    read_struct(v, out, [](auto& f) {
        f("module", &DkmsModule::module)("version", &DkmsModule::version)("kernel", &DkmsModule::kernel)(
            "built_for_running_kernel", &DkmsModule::built_for_running_kernel)("build_error", &DkmsModule::build_error);
    });
}
void read(od::value& v, AptSource& out) {
    read_struct(v, out, [](auto& f) {
        f("file", &AptSource::file)("line", &AptSource::line)("uri", &AptSource::uri)("suite", &AptSource::suite)(
            "components", &AptSource::components)("signed_by", &AptSource::signed_by)("enabled", &AptSource::enabled)(
            "signed_by_missing", &AptSource::signed_by_missing)("local_dir_missing", &AptSource::local_dir_missing);
    });
}
void read(od::value& v, HeldPackage& out) {
    read_struct(v, out, [](auto& f) { f("name", &HeldPackage::name)("version", &HeldPackage::version); });
}
void read(od::value& v, AptPin& out) {
    read_struct(v, out, [](auto& f) {
        f("file", &AptPin::file)("line", &AptPin::line)("package", &AptPin::package)("pin", &AptPin::pin)("priority", &AptPin::priority);
    });
}
void read(od::value& v, Platform& out) {
    read_struct(v, out, [](auto& f) {
        f("os_id", &Platform::os_id)("os_version", &Platform::os_version)("os_pretty", &Platform::os_pretty)("kernel", &Platform::kernel)(
            "arch", &Platform::arch)("glibc", &Platform::glibc)("gcc_default", &Platform::gcc_default)(
            "gcc_installed", &Platform::gcc_installed)("c_compiler", &Platform::c_compiler)("wsl", &Platform::wsl)(
            "wsl_gpu", &Platform::wsl_gpu)("wslconfig_path", &Platform::wslconfig_path)("wsl_memory_limit", &Platform::wsl_memory_limit)(
            "wsl_memory_line", &Platform::wsl_memory_line)("container", &Platform::container)("virtualization", &Platform::virtualization)(
            "secure_boot", &Platform::secure_boot)("dkms", &Platform::dkms)("evidence", &Platform::evidence)(
            "nvidia_visible_devices", &Platform::nvidia_visible_devices)("nvidia_driver_capabilities", &Platform::nvidia_driver_capabilities)(
            "nvidia_require_cuda", &Platform::nvidia_require_cuda)("nvidia_disable_require", &Platform::nvidia_disable_require)(
            "container_toolkit_version", &Platform::container_toolkit_version)("docker_installed", &Platform::docker_installed)(
            "docker_nvidia_runtime", &Platform::docker_nvidia_runtime)("cdi_specs", &Platform::cdi_specs)("apt_sources",
                                                                                                          &Platform::apt_sources)(
            "apt_keyrings", &Platform::apt_keyrings)("held_packages", &Platform::held_packages)("apt_pins", &Platform::apt_pins);
    });
}
void read(od::value& v, Finding& out) {
    read_struct(v, out, [](auto& f) {
        f("id", &Finding::id)("severity", &Finding::severity)("layer", &Finding::layer)("title", &Finding::title)("why", &Finding::why)(
            "fix", &Finding::fix)("evidence", &Finding::evidence)("consequence_of", &Finding::consequence_of);
    });
}

// The members validate.cpp requires of a machine snapshot without "kind".
constexpr std::array<std::string_view, 7> kRequiredWithoutKind = {"tool_version", "root",        "gpus",    "driver",
                                                                  "toolkits",     "environment", "platform"};

void read_machine(od::document& doc, Snapshot& snap) {
    std::string kind;
    bool has_schema = false, has_kind = false, has_levels = false;
    std::size_t required = 0;
    read_object(doc.get_object(), snap, [&](auto& f) {
        f("schema", &Snapshot::schema)("tool_version", &Snapshot::tool_version)("root", &Snapshot::root)("hostname", &Snapshot::hostname)(
            "taken_at", &Snapshot::taken_at)("overrides", &Snapshot::overrides)("gpus", &Snapshot::gpus)("driver", &Snapshot::driver)(
            "toolkits", &Snapshot::toolkits)("cudnn", &Snapshot::cudnn)("frameworks", &Snapshot::frameworks)("pythons", &Snapshot::pythons)(
            "environment", &Snapshot::environment)("platform", &Snapshot::platform)("notes", &Snapshot::notes)("findings",
                                                                                                               &Snapshot::findings)("kind",
                                                                                                                                    kind);
        // Each of these is read once (a second one is a duplicate, refused above), so counting works.
        has_schema = has_schema || f.is("schema");
        has_kind = has_kind || f.is("kind");
        has_levels = has_levels || f.is("levels");
        for (const auto name : kRequiredWithoutKind)
            if (f.is(name)) ++required;
    });
    // Past the document's end there is no location; anything else is something after it.
    if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) slow();
    if (!has_schema || snap.schema != kSchemaVersion) slow();
    if (has_kind ? kind != kMachineKind : (has_levels || required != kRequiredWithoutKind.size())) slow();
}

}  // namespace fast
}  // namespace

struct FastReader::State {
    simdjson::ondemand::parser parser;
    std::unique_ptr<char[]> buffer;
    std::size_t capacity = 0;  ///< of buffer, padding included
};

FastReader::FastReader() : m_state(std::make_unique<State>()) {}
FastReader::~FastReader() = default;

char* FastReader::buffer(std::size_t size) {
    // A rare large document would otherwise keep its buffer (and the parser's, ~5× its size)
    // for the rest of the run: start again small after one.
    constexpr std::size_t kKeep = 4u << 20;
    const std::size_t need = size + simdjson::SIMDJSON_PADDING;
    if (need > m_state->capacity || (m_state->capacity > kKeep && need <= kKeep)) {
        if (m_state->capacity > kKeep) m_state->parser = simdjson::ondemand::parser{};
        m_state->buffer = std::make_unique<char[]>(need);
        m_state->capacity = need;
    }
    return m_state->buffer.get();
}

bool FastReader::parse_into(std::size_t size, Snapshot& out) {
    if (size + simdjson::SIMDJSON_PADDING > m_state->capacity) return false;
    std::memset(m_state->buffer.get() + size, 0, simdjson::SIMDJSON_PADDING);
    try {
        simdjson::ondemand::document doc = m_state->parser.iterate(m_state->buffer.get(), size, m_state->capacity);
        fast::read_machine(doc, out);
        return true;
    } catch (const simdjson::simdjson_error&) {
        return false;
    } catch (const fast::NeedsSlowReader&) {
        return false;
    }
}

std::optional<Snapshot> FastReader::parse(std::size_t size) {
    Snapshot snap;
    if (!parse_into(size, snap)) return std::nullopt;
    return snap;
}

std::optional<Snapshot> FastReader::parse_text(std::string_view text) {
    char* data = buffer(text.size());
    if (!text.empty()) std::memcpy(data, text.data(), text.size());
    return parse(text.size());
}

}  // namespace cudoctor::snapshot
