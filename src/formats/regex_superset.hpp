#pragma once
// Reading an RE2 pattern's text for the Vectorscan pre-filter of formats::LogScanner: which
// literal every match must contain, and a Vectorscan expression that matches wherever RE2 could.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudoctor::formats::detail {

/// True when every match of the RE2 pattern `regex` contains `literal`, proven on the text: the
/// literal lies in a run of plain characters that every branch must match (groups included,
/// optional parts and alternatives that lack it excluded). False when unsure (flags such as
/// (?i), \x escapes, anything this reading does not follow): a false answer is never wrong.
bool literal_required(std::string_view regex, std::string_view literal);

/// A Vectorscan expression whose matches end wherever a match of the RE2 pattern `regex` ends,
/// inside any slice of the text: anchors and word boundaries are dropped (a window of the log
/// starts or ends where the whole text does not) and bounded repeats become unbounded (cheaper
/// to compile). It may match more; never less. nullopt for syntax it does not translate.
std::optional<std::string> superset_expression(std::string_view regex);

/// The strings the RE2 pattern `regex` matches, when it is only plain characters, escaped
/// punctuation, non-capturing groups (?:...) and alternation: in RE2's order of preference (a
/// leftmost-first match at a place is the first of them found there). nullopt for anything
/// else (classes, repeats, anchors, flags, captures, an empty string among them) or more than
/// 64 strings.
std::optional<std::vector<std::string>> literal_alternatives(std::string_view regex);

/// Strings, each at least min_length long and in lower case, such that every match of the RE2
/// pattern `regex` (byte-oriented, as the scanners compile it) contains one of them compared
/// without case: RE2's own pre-filter (FilteredRE2) reads the pattern, and the set is narrowed
/// to one that its AND/OR tree still needs (the shortest strings given up first). nullopt when
/// the tree can pass without any string of that length, or the pattern does not compile.
std::optional<std::vector<std::string>> required_atoms(std::string_view regex, std::size_t min_length);

/// A Vectorscan expression matching exactly the string s: every byte but letters and digits
/// as \xHH.
std::string vectorscan_literal(std::string_view s);

/// True when the RE2 pattern has an assertion about its surroundings (^ $ \b \B \A \z) or syntax
/// this reading does not follow: then whether it matches a stretch of text can depend on the
/// text around it. False means a match inside a window is a match inside any larger window.
bool has_assertions(std::string_view regex);

}  // namespace cudoctor::formats::detail
