#pragma once
// The parts of the probes that need nothing an earlier probe found, only the machine's files,
// and that fill only fields of their own: probe_machine starts them on the second core before
// the first probe runs, and each probe takes what its part found at the point where it used to
// do that work itself. The values, the notes and their order are the same; only where the time
// goes changes (on #25's 2-core VM, the loader cache, the package logs and the frameworks were
// 0.8 ms of a check's 5 ms of probing).
#include <array>
#include <memory>

#include "common/worker.hpp"

namespace cudoctor::probe {

class Context;

enum class Part {
    loader_cache,  ///< /etc/ld.so.cache, parsed: Context::ld_cache
    package_logs,  ///< apt's history or dpkg's log: the driver package changes (snapshot.driver.package_events)
    frameworks,    ///< the frameworks probe, which needs only Context::python_sites: snapshot.frameworks
};
inline constexpr std::size_t kParts = 3;

/// What fills each part (with probe_frameworks), and the notes it adds. Each reads only
/// through ctx.host and writes only the fields its Part names (and notes): it may run on a
/// scratch Context of its own.
void read_loader_cache_file(Context& ctx);
void read_driver_package_logs(Context& ctx);

class Ahead {
  public:
    /// Starts `part` on `worker`, on a scratch Context with a copy of ctx's Host (no cache
    /// shared), of its python_sites, and a Snapshot of its own.
    void start(Part part, const Context& ctx, Worker& worker);
    /// Fills `part`'s fields of ctx and adds its notes: what the worker found (waiting for it)
    /// when the part was started and not taken yet, else by doing the work here, now.
    void take(Part part, Context& ctx);

  private:
    struct Scratch;
    std::array<Pending<std::shared_ptr<Scratch>>, kParts> m_started;
};

/// Fills `part`'s fields of ctx: through ctx.ahead when probe_machine set one, else here, now.
void run_part(Part part, Context& ctx);

}  // namespace cudoctor::probe
