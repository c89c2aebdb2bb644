#pragma once
// What an Xid code means: data/xid_codes.tsv (NVIDIA's Xid catalogue), read from the tables
// compiled into the binary, or from DIR/xid_codes.tsv when --kb DIR has one (the KB's override
// rule).
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace cudoctor::watch {

struct XidInfo {
    int code = 0;
    std::string mnemonic;  ///< "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"
    std::string meaning;   ///< "GPU has fallen off the bus"
    std::string cause;     ///< app | driver | hardware | memory | bus | thermal | nvlink | firmware | info
    std::string action;    ///< NVIDIA's immediate resolution bucket: RESTART_APP, RESET_GPU, RESTART_BM, …
    std::string advice;    ///< one line: what to do
};

class XidCatalog {
  public:
    /// Parses the table text (kb::Table format). Errc::parse "NAME:LINE: …" for a missing
    /// column, a code that is not a number from 1 to 99999, a duplicated code, or an unknown cause.
    [[nodiscard]] static Expected<XidCatalog> parse(std::string_view name, std::string_view text);
    /// The embedded table, or KB_DIR/xid_codes.tsv when given and present (kb::load_table_text:
    /// Errc::not_found when KB_DIR is not a folder, "cannot read PATH: why" for an override that
    /// cannot be read); then errors as parse().
    [[nodiscard]] static Expected<XidCatalog> load(const std::optional<std::string>& kb_dir);

    /// The code's row, or nullptr for a code the table does not know.
    const XidInfo* find(int code) const;
    std::size_t size() const { return m_rows.size(); }
    /// Where the facts come from (the table's "# source:" line).
    const std::string& source() const { return m_source; }

  private:
    std::map<int, XidInfo> m_rows;
    std::string m_source;
};

}  // namespace cudoctor::watch
