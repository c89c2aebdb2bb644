#include "watch/xid_catalog.hpp"

#include <set>

#include "kb/load_table.hpp"
#include "kb/table.hpp"

namespace cudoctor::watch {
namespace {

constexpr std::string_view kTableName = "xid_codes.tsv";

}  // namespace

Expected<XidCatalog> XidCatalog::parse(std::string_view name, std::string_view text) {
    auto table = kb::Table::parse(name, text);
    if (!table) return Unexpected<Error>(table.error());
    if (auto ok = table->require_columns({"code", "mnemonic", "meaning", "cause", "action", "advice"}); !ok)
        return Unexpected<Error>(ok.error());
    static const std::set<std::string> kCauses = {"app", "driver", "hardware", "memory", "bus", "thermal", "nvlink", "firmware", "info"};
    XidCatalog catalog;
    catalog.m_source = table->source();
    for (const auto& row : table->rows()) {
        kb::RowView view(*table, row);
        auto code = view.optional_int("code");
        if (!code) return Unexpected<Error>(code.error());
        if (!*code || **code < 1 || **code > 99999) return view.error("code", "a number from 1 to 99999 is needed");
        XidInfo info{**code, view.text("mnemonic"), view.text("meaning"), view.text("cause"), view.text("action"), view.text("advice")};
        if (!kCauses.contains(info.cause)) return view.error("cause", "unknown cause '" + info.cause + "'");
        if (info.meaning.empty()) return view.error("meaning", "empty");
        if (!catalog.m_rows.emplace(info.code, info).second) return view.error("code", "duplicated code " + std::to_string(info.code));
    }
    return catalog;
}

Expected<XidCatalog> XidCatalog::load(const std::optional<std::string>& kb_dir) {
    auto text = kb::load_table_text(kTableName, kb_dir);
    if (!text) return Unexpected<Error>(text.error());
    return parse(text->shown_name, text->text);
}

const XidInfo* XidCatalog::find(int code) const {
    auto it = m_rows.find(code);
    return it == m_rows.end() ? nullptr : &it->second;
}

}  // namespace cudoctor::watch
