#pragma once
#include <string_view>
#include <vector>

namespace cudoctor::kb {

/// One data/ table as compiled into the binary: its file name ("gpus.tsv") and its text.
struct EmbeddedTable {
    std::string_view name;
    std::string_view text;
};

/// Every data/*.tsv, sorted by name. Generated at build time by cmake/embed_kb.cmake.
const std::vector<EmbeddedTable>& embedded_tables();

}  // namespace cudoctor::kb
