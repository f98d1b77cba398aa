// What dlpd accepts of one HTTP request before a worker thread sees it: how
// long the request line, headers and body may take (in total, so that a client
// trickling one byte at a time gains nothing), how many header lines and bytes,
// and how large a body. HeadScanner checks a request head as its bytes arrive.
#pragma once

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace dlp::server {

struct RequestLimits {
  absl::Duration head_deadline = absl::Seconds(10);   // request line and headers
  absl::Duration body_deadline = absl::Seconds(30);   // the whole body
  absl::Duration write_stall = absl::Seconds(10);     // a response the client does not read
  absl::Duration keep_alive_idle = absl::Seconds(5);  // between two requests
  size_t max_head_bytes = 16 * 1024;                  // request line and headers
  int max_header_count = 64;
  size_t max_body_bytes = 1024 * 1024;  // a job spec's JSON is far smaller
};

// Scans a growing buffer for the end of a request head. Each byte is looked at
// once, however the head is split across reads. Not thread-safe.
class HeadScanner {
 public:
  enum class State {
    kIncomplete,
    kComplete,
    kTooLarge,
    kBareLineFeed,  // a line ends in LF without CR: no head httplib parses
  };

  // `bytes` holds the connection's received bytes from the head's start; it
  // only grows between calls until Reset().
  State Scan(absl::string_view bytes, const RequestLimits& limits);
  // The head's size, blank line included (kComplete only).
  size_t head_size() const { return head_size_; }
  void Reset() { *this = HeadScanner(); }

 private:
  size_t scanned_ = 0;
  size_t line_start_ = 0;
  int lines_ = 0;
  size_t head_size_ = 0;
};

// The fields of a complete head that dlpd checks before serving it.
struct HeadFields {
  std::string target;  // the request line's, e.g. "/v1/jobs?limit=10"
  std::string authorization;
  std::string cookie;
  bool has_content_length = false;
  bool bad_content_length = false;  // not a number, or two different ones
  size_t content_length = 0;
  bool chunked = false;  // a Transfer-Encoding other than identity
};

// Parses the header lines of a complete head (request line skipped).
HeadFields ParseHeadFields(absl::string_view head);

}  // namespace dlp::server
