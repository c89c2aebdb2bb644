#pragma once
// How close TEST must be to REF for a tensor to pass. Elementwise, as torch.testing.assert_close:
// |test − ref| ≤ atol + rtol·|ref| for every element; and for the layer as a whole, the relative
// error ‖test − ref‖₂ / ‖ref‖₂ ≤ rel.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "formats/tensor_view.hpp"

namespace cudoctor::compare {

struct Tolerance {
    double rtol = 0;
    double atol = 0;
    double rel = 0;      ///< the layer's ‖test − ref‖ / ‖ref‖ limit
    bool exact = false;  ///< integers and bool: every element equal
    bool skip = false;   ///< a per-layer rule said not to judge this tensor
};

/// The default for one element type: torch.testing.assert_close's (rtol, atol) — F16 1e-3/1e-5,
/// BF16 1.6e-2/1e-5, F32 1.3e-6/1e-5, F64 1e-7/1e-7 — with rel = rtol, except BF16 whose layer
/// line is 1e-3 (the acceptance line of bf16 work); F8 (not in torch's table): one unit in the
/// last place, rtol = rel = 0.125 (E4M3) / 0.25 (E5M2), atol 1e-5. Integers and bool: exact.
Tolerance default_tolerance(formats::DType t);
/// The looser of the two defaults, field by field (as assert_close does for mixed types); exact
/// only when both are. Across two types the layer limit is the looser rtol (F32 against BF16:
/// 1.6e-2), since the rounding to the coarser type alone exceeds its same-type line.
Tolerance default_tolerance(formats::DType test, formats::DType ref);

/// Values from the command line that replace the defaults for every tensor. `rtol` alone also
/// sets the layer line (`rel`), so one number tightens or loosens both.
struct ToleranceOverride {
    std::optional<double> rtol, atol, rel;
    bool skip = false;
    /// `base` with these values applied (an exact tolerance becomes a numeric one when any is set).
    Tolerance apply(Tolerance base) const;
};

/// One line of a per-layer tolerance file: a glob (fnmatch) on the REF name and its values.
struct LayerRule {
    std::string pattern;
    ToleranceOverride values;
};

/// Parses a per-layer tolerance file: one rule a line, `PATTERN key=value…` with keys rtol,
/// atol, rel, or the word `skip`; `#` starts a comment, blank lines are ignored. Errc::parse
/// "line N: …" for an unknown key, a value that is not a non-negative number, or a rule with no
/// values. The first rule whose pattern matches a name applies.
Expected<std::vector<LayerRule>> parse_layer_rules(std::string_view text);

/// The tolerance for one tensor: the dtype defaults, then the command line's, then the first
/// matching layer rule.
Tolerance tolerance_for(std::string_view name, formats::DType test, formats::DType ref, const ToleranceOverride& cli,
                        const std::vector<LayerRule>& rules);

}  // namespace cudoctor::compare
