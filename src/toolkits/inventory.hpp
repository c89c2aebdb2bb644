#pragma once
// Every toolkit on the machine (as `check` finds them: runfile, deb, pip, conda) with what `list`
// adds: size on disk, the cuDNN copied inside it, which one /usr/local/cuda names, which one this
// shell's PATH finds, and what still references it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/host.hpp"
#include "report/style.hpp"
#include "snapshot/snapshot.hpp"
#include "toolkits/references.hpp"

namespace cudoctor::toolkits {

struct Entry {
    snapshot::Toolkit toolkit;
    std::string release;                      ///< the toolkit's release (snapshot::Toolkit::release, "12.4.1"); "" when unknown
    std::optional<std::uint64_t> size_bytes;  ///< apparent size of every file under it; nullopt when not measured
    bool size_partial = false;                ///< the walk stopped at its limit (or an unreadable folder)
    std::vector<std::string> cudnn;           ///< cuDNN versions inside its folder ("9.1.0")
    std::vector<Reference> references;
};

struct Inventory {
    std::vector<Entry> toolkits;  ///< sorted by version, as the toolkit probe sorts them
    std::string default_link;     ///< where /usr/local/cuda resolves ("" when absent or dangling)
    std::string default_via;      ///< "/etc/alternatives/cuda" when update-alternatives manages it
};

struct InventoryOptions {
    bool sizes = true;  ///< walk each folder for its size (the slow part on a real disk)
};

/// "12.4.1 (/usr/local/cuda-12.4)": the release users name (the version when unknown) and the
/// toolkit's folder, as plans and warnings name a toolkit.
std::string label(const Entry& e);

/// Builds the inventory from a probed snapshot; reads the toolkit folders and reference files
/// through the Host. Unreadable parts are left out, never fatal.
Inventory take_inventory(const host::Host& host, const snapshot::Snapshot& snap, const InventoryOptions& options = {});

/// "4.1 GiB", "812.0 MiB", "64.0 KiB", "12 B": report::bytes_text's one_decimal style.
inline std::string human_size(std::uint64_t bytes) {
    return report::bytes_text(static_cast<double>(bytes), report::ByteStyle::one_decimal);
}

nlohmann::json to_json(const Inventory& inv);

}  // namespace cudoctor::toolkits
