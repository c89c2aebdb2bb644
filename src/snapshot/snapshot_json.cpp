#include "snapshot/snapshot_json.hpp"
#include "snapshot/validate.hpp"

#include <optional>

namespace nlohmann {
template <class T>
struct adl_serializer<std::optional<T>> {
    static void to_json(json& j, const std::optional<T>& v) {
        if (v) j = *v;
        else j = nullptr;
    }
    static void from_json(const json& j, std::optional<T>& v) {
        if (j.is_null()) v.reset();
        else v = j.get<T>();
    }
};
}  // namespace nlohmann

namespace cudoctor::snapshot {

// The closed sets by their one spelling (kinds.hpp); an unknown spelling in a saved snapshot reads
// as the first entry.
NLOHMANN_JSON_SERIALIZE_ENUM(Severity, {{Severity::info, "info"}, {Severity::warning, "warning"}, {Severity::error, "error"}})
NLOHMANN_JSON_SERIALIZE_ENUM(Layer, {{Layer::platform, "platform"},
                                     {Layer::gpu, "gpu"},
                                     {Layer::driver, "driver"},
                                     {Layer::toolkit, "toolkit"},
                                     {Layer::cudnn, "cudnn"},
                                     {Layer::framework, "framework"},
                                     {Layer::environment, "environment"}})
NLOHMANN_JSON_SERIALIZE_ENUM(InstallMethod, {{InstallMethod::unknown, "unknown"},
                                             {InstallMethod::runfile, "runfile"},
                                             {InstallMethod::deb, "deb"},
                                             {InstallMethod::pip, "pip"},
                                             {InstallMethod::conda, "conda"}})
NLOHMANN_JSON_SERIALIZE_ENUM(ModuleFlavour,
                             {{ModuleFlavour::unknown, ""}, {ModuleFlavour::proprietary, "proprietary"}, {ModuleFlavour::open, "open"}})

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Evidence, source, detail)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProbeNote, probe, path, message)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Gpu, bus_id, pci_device_id, pci_class, subsystem_id, name, chip, architecture,
                                                compute_capability, name_source, bound_driver, evidence)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DriverLibrary, name, path, version)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PackageEvent, when, action, package, old_version, new_version, by, source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Driver, kernel_module_version, flavour, kernel_module_compiler, modules_known,
                                                loaded_modules, user_space_versions, libraries, max_cuda, max_cuda_source, package_events,
                                                packages, windows_version, evidence)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ToolkitComponent, name, version)
// release, release_source and components are absent from snapshots written before the version
// model: they read as unknown, and the rules then map `version` as before.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Toolkit, version, version_source, release, release_source, components, path, install_method,
                                                has_nvcc, nvcc_path, is_default, first_on_path, on_path, max_gcc, max_gcc_source, found_by,
                                                lib_dir, cudart_soname, cudart_loader_visible, evidence)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CudnnFlattenedChain, real_file, names, copies, size)
// flattened is absent from snapshots written before cudnn-links-flattened: it reads as none.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Cudnn, version, path, header_version, library_versions, location, cuda_major,
                                                loader_visible, flattened, evidence)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Framework, name, version, cuda, cudnn, python, interpreter, cuda_archs, nvidia_wheels,
                                                evidence, binary_archs, binary_archs_source)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Python, interpreter, version, site, has_headers)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LibraryPathEntry, path, exists, empty, real_path, cuda_libraries)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LoaderEntry, soname, path, arch, real_dir)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StartupLine, file, line, text, name, value, keeps_old, nvcc_before, appended_dir,
                                                missing_toolkits)
// cuda_launch_blocking and startup_lines are absent from snapshots written before the start-up
// files were read: they read as unset and none.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Environment, path, nvcc_on_path, nvcc_on_path_real, ld_library_path, cuda_home, cuda_path,
                                                cuda_visible_devices, cuda_symlink, cuda_symlink_dangling, ld_so_conf_dirs,
                                                loader_cache_format, loader_cache, conda_envs, active_conda_env, virtual_env,
                                                cuda_launch_blocking, startup_lines, evidence)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DkmsModule, module, version, kernel, built_for_running_kernel, build_error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AptSource, file, line, uri, suite, components, signed_by, enabled, signed_by_missing,
                                                local_dir_missing)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HeldPackage, name, version)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AptPin, file, line, package, pin, priority)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Platform, os_id, os_version, os_pretty, kernel, arch, glibc, gcc_default, gcc_installed,
                                                c_compiler, wsl, wsl_gpu, wslconfig_path, wsl_memory_limit, wsl_memory_line, container,
                                                virtualization, secure_boot, dkms, evidence, nvidia_visible_devices,
                                                nvidia_driver_capabilities, nvidia_require_cuda, nvidia_disable_require,
                                                container_toolkit_version, docker_installed, docker_nvidia_runtime, cdi_specs, apt_sources,
                                                apt_keyrings, held_packages, apt_pins)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Finding, id, severity, layer, title, why, fix, evidence, consequence_of)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Snapshot, schema, tool_version, root, hostname, taken_at, overrides, gpus, driver, toolkits,
                                                cudnn, frameworks, pythons, environment, platform, notes, findings)

nlohmann::json to_json_value(const Snapshot& snap) {
    nlohmann::json j = snap;
    j["kind"] = std::string(kMachineKind);  // what the readers require (validate.hpp)
    return j;
}

Expected<Snapshot> from_json_text(std::string_view text) {
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return fail(Errc::parse, "not a JSON document");
    if (!j.is_object()) return fail(Errc::parse, "not a cudoctor snapshot (expected a JSON object)");
    if (!j.contains("schema") || !j["schema"].is_number_integer())
        return fail(Errc::parse, "not a cudoctor snapshot (no \"schema\" number)");
    if (const int schema = j["schema"].get<int>(); schema != kSchemaVersion)
        return fail(Errc::unsupported, "snapshot schema " + std::to_string(schema) + " is not supported (this cudoctor reads schema " +
                                           std::to_string(kSchemaVersion) + ")");
    try {
        return j.get<Snapshot>();
    } catch (const nlohmann::json::exception& e) {
        return fail(Errc::parse, std::string("snapshot member of the wrong type: ") + e.what());
    }
}

}  // namespace cudoctor::snapshot
