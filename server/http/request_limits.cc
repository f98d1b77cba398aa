#include "server/http/request_limits.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dlp::server {

HeadScanner::State HeadScanner::Scan(absl::string_view bytes, const RequestLimits& limits) {
  // Blank lines before the request line are allowed (RFC 9112 2.2) but count.
  // Every line ends in CRLF: httplib parses no other head, and would leave
  // what it did not parse to be read as the next request.
  for (; scanned_ < bytes.size() && scanned_ < limits.max_head_bytes; ++scanned_) {
    if (bytes[scanned_] != '\n') continue;
    if (scanned_ == 0 || bytes[scanned_ - 1] != '\r') return State::kBareLineFeed;
    const size_t length = scanned_ - line_start_;
    const bool blank = length == 1;  // the CR alone
    line_start_ = scanned_ + 1;
    if (blank && lines_ > 0) {
      head_size_ = scanned_ + 1;
      ++scanned_;
      return State::kComplete;
    }
    // The request line plus max_header_count headers.
    if (++lines_ > limits.max_header_count + 1) return State::kTooLarge;
  }
  return scanned_ >= limits.max_head_bytes ? State::kTooLarge : State::kIncomplete;
}

HeadFields ParseHeadFields(absl::string_view head) {
  HeadFields fields;
  bool first = true;
  for (absl::string_view line : absl::StrSplit(head, '\n')) {
    if (first) {
      first = false;
      std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (words.size() >= 2) fields.target = std::string(words[1]);
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    const absl::string_view name = absl::StripAsciiWhitespace(line.substr(0, colon));
    const absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
    if (absl::EqualsIgnoreCase(name, "Authorization")) {
      fields.authorization = std::string(value);
    } else if (absl::EqualsIgnoreCase(name, "Cookie")) {
      // Browsers send one Cookie line (RFC 6265 5.4); more are joined as one.
      if (!fields.cookie.empty()) fields.cookie += "; ";
      absl::StrAppend(&fields.cookie, value);
    } else if (absl::EqualsIgnoreCase(name, "Content-Length")) {
      size_t length = 0;
      const bool digits =
          !value.empty() && value.find_first_not_of("0123456789") == absl::string_view::npos;
      if (!digits || !absl::SimpleAtoi(value, &length) ||
          (fields.has_content_length && length != fields.content_length)) {
        fields.bad_content_length = true;
      }
      fields.has_content_length = true;
      fields.content_length = length;
    } else if (absl::EqualsIgnoreCase(name, "Transfer-Encoding")) {
      if (!absl::EqualsIgnoreCase(value, "identity")) fields.chunked = true;
    }
  }
  return fields;
}

}  // namespace dlp::server
