#include "spec/suggest.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dlp/suggest.h"

namespace dlp::internal {

int EditDistance(absl::string_view a, absl::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

namespace {

// Lower case without '_' and '-': "restart_policy" and "restartPolicy" agree.
std::string Fold(absl::string_view word) {
  std::string out;
  for (char c : word) {
    if (c != '_' && c != '-') out.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Whether the letters of `word` appear in `of`, in order, starting with its first.
bool IsSubsequence(absl::string_view word, absl::string_view of) {
  if (word.empty() || of.empty() || word[0] != of[0]) return false;
  size_t i = 0;
  for (char c : of) {
    if (i < word.size() && word[i] == c) ++i;
  }
  return i == word.size();
}

}  // namespace

std::optional<std::string> ClosestMatch(absl::string_view word,
                                        std::span<const absl::string_view> candidates) {
  const std::string folded = Fold(word);
  if (folded.empty()) return std::nullopt;
  for (absl::string_view c : candidates) {
    if (Fold(c) == folded) return std::string(c);
  }
  std::optional<std::string> best;
  int best_distance = 0;
  for (absl::string_view c : candidates) {
    const std::string fc = Fold(c);
    const int distance = EditDistance(folded, fc);
    const int limit =
        std::clamp(static_cast<int>((std::max(folded.size(), fc.size()) + 2) / 3), 1, 4);
    if (distance <= limit && (!best || distance < best_distance)) {
      best = std::string(c);
      best_distance = distance;
    }
  }
  if (best) return best;
  // An abbreviation: "mem" for memory, "cmd" for command.
  if (folded.size() >= 3) {
    for (absl::string_view c : candidates) {
      if (IsSubsequence(folded, Fold(c))) return std::string(c);
    }
  }
  return std::nullopt;
}

std::string JoinNames(std::span<const absl::string_view> names) {
  return absl::StrJoin(names, ", ");
}

std::string UnknownName(absl::string_view what, absl::string_view value,
                        std::span<const absl::string_view> valid) {
  std::string message = absl::StrCat("unknown ", what, " \"", value, "\"");
  if (auto match = ClosestMatch(value, valid)) {
    absl::StrAppend(&message, "; did you mean '", *match, "'?");
  }
  absl::StrAppend(&message, " (expected one of: ", JoinNames(valid), ")");
  return message;
}

std::string UnknownKey(absl::string_view kind, absl::string_view key,
                       std::span<const absl::string_view> valid) {
  std::string message = absl::StrCat("unknown ", kind);
  if (std::optional<std::string> match = ClosestMatch(key, valid)) {
    absl::StrAppend(&message, "; did you mean '", *match, "'?");
    if (kind != "field") absl::StrAppend(&message, " (", kind, "s: ", JoinNames(valid), ")");
  } else {
    absl::StrAppend(&message, "; expected one of: ", JoinNames(valid));
  }
  return message;
}

}  // namespace dlp::internal

namespace dlp {

std::optional<std::string> ClosestName(std::string_view word,
                                       const std::vector<std::string>& candidates) {
  const std::vector<absl::string_view> names(candidates.begin(), candidates.end());
  return internal::ClosestMatch(absl::string_view(word.data(), word.size()), names);
}

}  // namespace dlp
