#pragma once
// What every probe gets: the Host (the only door to the machine), the KB, the Snapshot it fills,
// and the few parsed facts several probes share (parsed once, here).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/conda_meta.hpp"
#include "formats/ld_so_cache.hpp"
#include "host/host.hpp"
#include "host/mapped_file.hpp"
#include "kb/kb.hpp"
#include "snapshot/snapshot.hpp"

namespace cudoctor {
class Worker;
}

namespace cudoctor::probe {

class Ahead;

struct Options {
    std::vector<std::string> pythons;  ///< extra interpreters (--python)
    bool allow_processes = true;       ///< run `nvcc --version` when no file tells the version
    std::chrono::milliseconds process_timeout{3000};
    /// Do the probes' independent parts on a second core, where the process may use one (the
    /// same snapshot either way; false: all on the calling thread).
    bool second_core = true;
};

/// A site-packages (or dist-packages) folder and the interpreter that uses it.
struct PythonSite {
    std::string dir;           ///< canonical machine path
    std::string interpreter;   ///< the python found for it ("" for a conda env without one)
    std::string version;       ///< "3.11"
    bool has_headers = false;  ///< Python.h of that version exists
};

class Context {
  public:
    Context(const host::Host& host, const kb::Kb& kb, const Options& options, snapshot::Snapshot& snap)
        : host(host), kb(kb), options(options), snap(snap) {}

    const host::Host& host;
    const kb::Kb& kb;
    const Options& options;
    snapshot::Snapshot& snap;

    /// Parsed /etc/ld.so.cache (environment probe); empty when absent or unreadable.
    std::optional<formats::LdCache> ld_cache;
    /// The installed dpkg packages (platform probe), read once; empty when not a dpkg system.
    struct Package {
        std::string name, version;
    };
    std::vector<Package> dpkg;
    /// Every Python site folder found (environment probe), in discovery order.
    std::vector<PythonSite> python_sites;
    /// The parts started ahead on the second core (probe_machine's), or null: run_part() then
    /// does each part where it is asked for.
    Ahead* ahead = nullptr;
    /// The second core, for a probe's own work in two halves (probe_machine's), or null.
    Worker* worker = nullptr;

    /// Records a probe's trouble as a note in the Snapshot.
    void note(std::string_view probe, std::string_view path, std::string_view message);
    /// Reads a file. A missing file is a plain nullopt (a fact, not a fault); any other error
    /// (too large, loop, permission, not a regular file) also adds a note naming the file.
    std::optional<std::string> read(std::string_view probe, std::string_view path, std::size_t cap = host::kDefaultReadCap);

    /// A whole file's bytes, mapped where it can be, read otherwise.
    class Text {
      public:
        explicit Text(host::MappedFile mapped) : m_mapped(std::move(mapped)) {}
        explicit Text(std::string read) : m_read(std::move(read)) {}
        std::string_view view() const { return m_mapped ? m_mapped->bytes() : std::string_view(m_read); }

      private:
        std::optional<host::MappedFile> m_mapped;
        std::string m_read;
    };
    /// read(), for the large files a probe scans once (dpkg's status file, the package logs): a
    /// non-empty regular file within `cap` is mapped, so its pages come from the page cache as
    /// they are scanned instead of being copied into fresh memory; anything else (missing, too
    /// large, empty, unreadable) goes through read(), with its answer and its note.
    std::optional<Text> read_large(std::string_view probe, std::string_view path, std::size_t cap);
    /// The installed version of a dpkg package, or nullopt.
    std::optional<std::string> dpkg_version(std::string_view name) const;
    /// A conda-meta/*.json package record; nullopt when unreadable (a note says why).
    std::optional<formats::CondaPackage> read_conda_meta(std::string_view probe, const std::string& file);
    /// The canonical path, or nullopt when it does not resolve (a note is added on a loop).
    std::optional<std::string> canonical(std::string_view probe, std::string_view path);
};

void probe_environment(Context& ctx);
void probe_platform(Context& ctx);
void probe_gpus(Context& ctx);
void probe_driver(Context& ctx);
void probe_toolkits(Context& ctx);
void probe_cudnn(Context& ctx);
void probe_frameworks(Context& ctx);

/// Runs every probe in order and returns the filled Snapshot (findings empty: rules come after).
snapshot::Snapshot probe_machine(const host::Host& host, const kb::Kb& kb, const Options& options);

}  // namespace cudoctor::probe
