#pragma once
// Which tensor of TEST is which tensor of REF: the same name, unless a map renames it.
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "formats/tensor_view.hpp"

namespace cudoctor::compare {

/// Renames from REF's names to TEST's: exact ("encoder.fc=encoder.linear") or by prefix, both
/// sides ending in '*' ("*=_orig_mod.*" adds torch.compile's prefix; "model.*=*" drops one).
class NameMap {
  public:
    /// Adds one "OLD=NEW" rule. Errc::usage for a missing '=', an empty side, or a '*' that is
    /// not the last character of both sides.
    Expected<void> add(std::string_view rule);
    /// Adds every line of a map file: "OLD=NEW" or "OLD NEW", '#' comments, blank lines ignored.
    /// Errc::parse "line N: …" for a line that is not a rule.
    Expected<void> add_file(std::string_view content);
    /// The name REF's `name` has in TEST: the first exact rule that names it, else the first
    /// prefix rule (in the order given) that matches, else `name` itself.
    std::string to_test(std::string_view name) const;

  private:
    struct Rule {
        std::string from, to;
        bool prefix = false;
    };
    std::vector<Rule> m_rules;
};

struct Pairing {
    struct Pair {
        std::size_t ref = 0;   ///< index into REF's tensors
        std::size_t test = 0;  ///< index into TEST's tensors
    };
    std::vector<Pair> pairs;             ///< REF's order (execution order), or by name when sorted
    std::vector<std::string> only_ref;   ///< REF names with no partner, in REF's order
    std::vector<std::string> only_test;  ///< TEST names no REF name maps to, in TEST's order
};

/// Pairs REF's tensors with TEST's through `map`.
Pairing pair_tensors(const std::vector<formats::TensorView>& ref, const std::vector<formats::TensorView>& test, const NameMap& map,
                     bool sort_by_name);

}  // namespace cudoctor::compare
