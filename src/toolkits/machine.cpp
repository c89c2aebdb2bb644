#include "toolkits/machine.hpp"

#include "probe/context.hpp"

namespace cudoctor::toolkits {

Expected<std::unique_ptr<Machine>> load_machine(const std::optional<std::string>& root, const std::optional<std::string>& kb_dir,
                                                const InventoryOptions& options) {
    auto kb = kb::Kb::load(kb_dir);
    if (!kb) return Unexpected<Error>(kb.error());
    auto host = root ? host::Host::rooted(*root) : Expected<host::Host>(host::Host::real());
    if (!host) return Unexpected<Error>(host.error());
    probe::Options probe_options;
    auto snap = probe::probe_machine(*host, *kb, probe_options);
    auto inv = take_inventory(*host, snap, options);
    return std::make_unique<Machine>(Machine{std::move(*host), std::move(snap), std::move(inv)});
}

}  // namespace cudoctor::toolkits
