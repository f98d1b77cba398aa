// "Did you mean ...?": the closest valid name to a misspelt one.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "absl/strings/string_view.h"

namespace dlp::internal {

// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions).
int EditDistance(absl::string_view a, absl::string_view b);

// The candidate a user most likely meant by `word`, or nothing when none is
// close: same name up to case and '_'/'-', a prefix ("mem" -> "memory"), or an
// edit distance of at most a third of the longer word (at least 1, at most 3).
std::optional<std::string> ClosestMatch(absl::string_view word,
                                        std::span<const absl::string_view> candidates);

// "a, b, c" (for "expected one of ...").
std::string JoinNames(std::span<const absl::string_view> names);

}  // namespace dlp::internal
