#pragma once
// Container probe: inside a container, the NVIDIA Container Toolkit's variables of its
// environment; on a host, the toolkit itself, Docker, Docker's nvidia runtime and the CDI specs.
#include "probe/context.hpp"

namespace cudoctor::probe {

/// Fills the container part of ctx.snap.platform (after the platform probe: it needs `container`
/// and the dpkg packages). A daemon.json that is no JSON object gives a note, never a crash.
void probe_container(Context& ctx);

}  // namespace cudoctor::probe
