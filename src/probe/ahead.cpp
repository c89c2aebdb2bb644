#include "probe/ahead.hpp"

#include "probe/context.hpp"

namespace cudoctor::probe {
namespace {

void run_here(Part part, Context& ctx) {
    switch (part) {
        case Part::loader_cache: read_loader_cache_file(ctx); return;
        case Part::package_logs: read_driver_package_logs(ctx); return;
        case Part::frameworks: probe_frameworks(ctx); return;
    }
}

template <class T>
void append(std::vector<T>& to, std::vector<T>& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

}  // namespace

/// A Context of the worker's own: nothing in it is shared with the probes' Context.
struct Ahead::Scratch {
    host::Host host;
    snapshot::Snapshot snap;
    Context ctx;
    explicit Scratch(const Context& from) : host(from.host), ctx(host, from.kb, from.options, snap) {
        ctx.python_sites = from.python_sites;
    }
};

void Ahead::start(Part part, const Context& ctx, Worker& worker) {
    auto scratch = std::make_shared<Scratch>(ctx);  // copied here: the task touches no Context of the probes
    m_started[static_cast<std::size_t>(part)] = worker.post([scratch, part] {
        run_here(part, scratch->ctx);
        return scratch;
    });
}

void Ahead::take(Part part, Context& ctx) {
    auto& started = m_started[static_cast<std::size_t>(part)];
    if (!started.valid()) {
        run_here(part, ctx);
        return;
    }
    const std::shared_ptr<Scratch> done = started.get();  // leaves `started` invalid: taken once
    // The notes first, as the part added them, through ctx.note (which drops one already there).
    for (const auto& n : done->snap.notes) ctx.note(n.probe, n.path, n.message);
    switch (part) {
        case Part::loader_cache: ctx.ld_cache = std::move(done->ctx.ld_cache); return;
        case Part::package_logs: append(ctx.snap.driver.package_events, done->snap.driver.package_events); return;
        case Part::frameworks: append(ctx.snap.frameworks, done->snap.frameworks); return;
    }
}

void run_part(Part part, Context& ctx) {
    if (ctx.ahead) ctx.ahead->take(part, ctx);
    else run_here(part, ctx);
}

}  // namespace cudoctor::probe
