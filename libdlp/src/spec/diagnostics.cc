#include "spec/diagnostics.h"

#include <algorithm>
#include <climits>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dlp::internal {
namespace {

constexpr size_t kMaxMessages = 20;

// Number of leading path segments `a` and `b` share.
size_t CommonSegments(absl::string_view a, absl::string_view b) {
  std::vector<absl::string_view> sa = absl::StrSplit(a, '.');
  std::vector<absl::string_view> sb = absl::StrSplit(b, '.');
  size_t n = 0;
  while (n < sa.size() && n < sb.size() && sa[n] == sb[n]) ++n;
  return n;
}

}  // namespace

void Diagnostics::Add(const YAML::Mark& mark, absl::string_view given_path,
                      absl::string_view message) {
  std::string rewritten;
  absl::string_view path = given_path;
  if (!prefix_from_.empty() && absl::ConsumePrefix(&path, prefix_from_) &&
      (path.empty() || path[0] == '.' || path[0] == '[')) {
    rewritten = absl::StrCat(prefix_to_, path);
    path = rewritten;
  } else {
    path = given_path;
  }
  std::string where = filename_;
  std::string origin;
  if (!mark.is_null() && mark.line >= 0) {
    absl::StrAppend(&where, ":", mark.line + 1, ":", mark.column + 1);
  } else if (!overrides_.empty()) {
    // Only overrides create nodes without a position: name the closest one.
    const std::string* best = &overrides_.front();
    size_t best_common = 0;
    for (const std::string& o : overrides_) {
      absl::string_view o_path = absl::string_view(o).substr(0, o.find('='));
      const size_t common = CommonSegments(o_path, path);
      if (common > best_common) {
        best = &o;
        best_common = common;
      }
    }
    origin = absl::StrCat(" (from --set ", *best, ")");
  }
  // JSON (no file) names the field alone.
  std::string text = absl::StrCat(where, where.empty() ? "" : ": ", path, path.empty() ? "" : ": ",
                                  message, origin);
  // spec.env is read once for each replica it is merged into: one report.
  for (const Message& m : messages_) {
    if (m.text == text) return;
  }
  const bool positioned = !mark.is_null() && mark.line >= 0;
  messages_.push_back(
      {positioned ? mark.line : INT_MAX, positioned ? mark.column : 0, std::move(text)});
}

void Diagnostics::AddPlain(absl::string_view message) {
  messages_.push_back({-1, 0, std::string(message)});
}

absl::Status Diagnostics::ToStatus() const {
  if (messages_.empty()) return absl::OkStatus();
  std::vector<Message> sorted = messages_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Message& a, const Message& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  std::vector<std::string> shown;
  for (size_t i = 0; i < sorted.size() && i < kMaxMessages; ++i) shown.push_back(sorted[i].text);
  if (messages_.size() > kMaxMessages) {
    shown.push_back(absl::StrCat("... and ", messages_.size() - kMaxMessages, " more problems"));
  }
  return absl::InvalidArgumentError(absl::StrJoin(shown, "\n"));
}

}  // namespace dlp::internal
