#pragma once
// A second reader of machine snapshots, for `fleet` over thousands of files: simdjson's On-Demand
// parser fills the Snapshot structs straight from the text, with no JSON tree in between. It
// answers only when it is sure to give what machine_from_json_text (validate.hpp) gives: for
// anything unusual (invalid JSON, a wrong-typed or duplicate member, a number nlohmann would
// convert, another schema, a document that is not a machine) it answers nullopt, and the caller
// reads the text with machine_from_json_text, which gives the value or the exact error message.
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include "snapshot/snapshot.hpp"

namespace cudoctor::snapshot {

/// One per thread: the parser and a padded buffer, reused from document to document, so memory
/// follows the largest document read, not how many.
class FastReader {
  public:
    FastReader();
    ~FastReader();
    FastReader(const FastReader&) = delete;
    FastReader& operator=(const FastReader&) = delete;

    /// Room for a document of up to `size` bytes (padded as the parser needs): write the
    /// document there, then call parse() with its length. Valid until the next call.
    [[nodiscard]] char* buffer(std::size_t size);

    /// The machine snapshot in the buffer's first `size` bytes (size <= the last buffer() size),
    /// or nullopt when the document needs machine_from_json_text (see above). Never throws.
    [[nodiscard]] std::optional<Snapshot> parse(std::size_t size);

    /// parse() into `out`, reusing its strings and lists (a thread reading many files keeps one
    /// Snapshot). True when it answered: `out` is then what parse() would return; false leaves
    /// `out` in an unspecified but valid state.
    [[nodiscard]] bool parse_into(std::size_t size, Snapshot& out);

    /// parse() of a copy of `text` (tests, and callers that already hold the text).
    [[nodiscard]] std::optional<Snapshot> parse_text(std::string_view text);

  private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace cudoctor::snapshot
