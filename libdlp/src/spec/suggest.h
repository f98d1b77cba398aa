// "Did you mean ...?": the closest valid name to a misspelt one (dlp/suggest.h
// gives ClosestMatch to the dlp command).
#pragma once

#include <optional>
#include <span>
#include <string>

#include "absl/strings/string_view.h"

namespace dlp::internal {

// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions).
int EditDistance(absl::string_view a, absl::string_view b);

// The candidate a user most likely meant by `word`, or nothing when none is
// close: same name up to case and '_'/'-', an edit distance of about a third of
// the longer word (1 to 4), or an abbreviation ("mem" -> "memory", "cmd" -> "command").
std::optional<std::string> ClosestMatch(absl::string_view word,
                                        std::span<const absl::string_view> candidates);

// "a, b, c" (for "expected one of ...").
std::string JoinNames(std::span<const absl::string_view> names);

// `unknown WHAT "VALUE"; did you mean 'X'? (expected one of: a, b, c)`.
std::string UnknownName(absl::string_view what, absl::string_view value,
                        std::span<const absl::string_view> valid);

// `unknown KIND; did you mean 'X'?` or `unknown KIND; expected one of: a, b`:
// a map key that is not one of `valid`, worded the same in YAML and JSON.
std::string UnknownKey(absl::string_view kind, absl::string_view key,
                       std::span<const absl::string_view> valid);

}  // namespace dlp::internal
