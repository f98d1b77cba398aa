// "Did you mean ...?": the one way dlp suggests a name for a misspelt one, for a
// spec's fields and the dlp command's subcommands alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlp {

// The candidate a user most likely meant by `word` ("sumbit" -> "submit"), or
// nothing when none is close; judged as for a spec's unknown fields.
std::optional<std::string> ClosestName(std::string_view word,
                                       const std::vector<std::string>& candidates);

}  // namespace dlp
