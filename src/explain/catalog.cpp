// Loading data/error_catalog.tsv (or its --kb override) into catalog rows.
#include <set>

#include <re2/re2.h>
#include <re2/set.h>

#include "common/text.hpp"
#include "explain/causes.hpp"
#include "explain/explain.hpp"
#include "formats/log_scan.hpp"
#include "kb/load_table.hpp"
#include "kb/table.hpp"

namespace cudoctor::explain {

namespace {

constexpr std::string_view kCatalogFile = "error_catalog.tsv";

}  // namespace

Expected<std::vector<CatalogRow>> parse_catalog(std::string_view name, std::string_view text) {
    auto table = kb::Table::parse(name, text);
    if (!table) return Unexpected<Error>(table.error());
    if (auto ok = table->require_columns({"pattern", "cause", "confidence", "literal", "regex", "captures"}); !ok)
        return Unexpected<Error>(ok.error());
    std::vector<CatalogRow> rows;
    std::set<std::string> ids;
    RE2::Options options;
    options.set_encoding(RE2::Options::EncodingLatin1);
    options.set_log_errors(false);
    RE2::Set parsed(options, RE2::UNANCHORED);  // Add parses a regex; only Compile would compile them
    for (const auto& raw : table->rows()) {
        kb::RowView row(*table, raw);
        CatalogRow r;
        r.line = row.line();
        r.pattern = row.text("pattern");
        r.cause = row.text("cause");
        r.confidence = row.text("confidence");
        r.literal = row.text("literal");
        r.regex = row.text("regex");
        const std::string captures = row.text("captures");  // split() views into it: keep it alive
        for (auto part : text::split(captures, ','))
            if (auto t = text::trim(part); !t.empty()) r.captures.emplace_back(t);
        if (r.pattern.empty()) return row.error("pattern", "empty");
        if (!ids.insert(r.pattern).second) return row.error("pattern", "duplicated id '" + r.pattern + "'");
        const auto* cause = find_cause(r.cause);
        if (!cause) return row.error("cause", "unknown cause '" + r.cause + "'");
        r.cause = std::string(cause->id);  // an old id (an alias for one release) names its new one
        if (r.confidence != "high" && r.confidence != "medium" && r.confidence != "low" && r.confidence != "context")
            return row.error("confidence", "must be high, medium, low or context");
        if (r.literal.empty()) return row.error("literal", "empty");
        // Parsed, not compiled (the scanner compiles only the rows a log can match): RE2's own
        // refusal, and the groups counted on the text.
        std::string refused;
        if (parsed.Add(r.regex, &refused) < 0) return row.error("regex", refused);
        if (const auto groups = formats::capturing_groups(r.regex); groups != r.captures.size())
            return row.error("captures", "names " + std::to_string(r.captures.size()) + " groups, the regex has " + std::to_string(groups));
        rows.push_back(std::move(r));
    }
    if (rows.empty()) return fail(Errc::parse, std::string(name) + ": no patterns");
    return rows;
}

Expected<std::vector<CatalogRow>> load_catalog(const std::optional<std::string>& kb_dir) {
    auto text = kb::load_table_text(kCatalogFile, kb_dir);
    if (!text) return Unexpected<Error>(text.error());
    return parse_catalog(text->shown_name, text->text);
}

}  // namespace cudoctor::explain
