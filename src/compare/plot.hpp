#pragma once
// `compare --plot FILE.svg`: each layer's relative error in order, on a log scale, with the
// tolerance line — a drift is seen at a glance where a table has to be read.
#include <string>

#include "compare/compare.hpp"

namespace cudoctor::compare {

/// A standalone SVG document: x the layers in order, y ‖TEST − REF‖ / ‖REF‖ on a log scale,
/// the layer limit as a dashed step line, passing points green, failing red, the first failure
/// marked with a vertical line and its name; each point's <title> names the layer and its
/// numbers (a tooltip in browsers). Exact layers (error 0) sit on the bottom edge as hollow
/// points; infinite or NaN errors on the top edge as crosses. Never fails; an empty
/// comparison gives an empty chart. When both dumps carry timings, a second panel below: each
/// layer's time ratio TEST/REF (log scale), the threshold dashed, slower layers red.
std::string render_svg(const Comparison& c);

}  // namespace cudoctor::compare
