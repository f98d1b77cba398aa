// One HTTP request through libcurl (loaded on first use, curl_library.h): the
// transport of the Kubernetes API client and of slurmrestd's REST API. TLS
// from files or PEM text, timeouts, headers, and a bound on what the server
// may send.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp::base {

// How the server is trusted and how this client proves who it is; a file and
// PEM text may both be given (as a kubeconfig may).
struct TlsOptions {
  std::string ca_file, ca_pem;
  std::string client_cert_file, client_cert_pem;
  std::string client_key_file, client_key_pem;
  bool insecure_skip_verify = false;
};

// Called with each line of a 2xx answer as it arrives, without its '\n';
// returning false ends the transfer.
using LineSink = std::function<bool(std::string_view line)>;

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  std::string body;                  // sent when not empty
  TlsOptions tls;
  absl::Duration connect_timeout = absl::Seconds(10);
  absl::Duration timeout = absl::InfiniteDuration();  // the whole exchange
  absl::Duration idle = absl::InfiniteDuration();     // under 1 byte/s this long: stuck
  // What the server may send (with a sink: the longest line); more is an error.
  size_t max_body_bytes = size_t{64} << 20;
  const LineSink* sink = nullptr;  // null: the body comes back whole
};

struct HttpReply {
  long code = 0;
  // The whole body; with a sink, an answer that is not 2xx whole, or else
  // the last line if it had no '\n'.
  std::string body;
  bool stopped = false;  // the sink ended the transfer
};

// Performs `request`. `peer` names the server in errors ("slurmrestd at
// http://h:6820"): Unavailable "cannot reach PEER: why" when the exchange
// fails, ResourceExhausted when PEER sends more than max_body_bytes, and
// Unavailable naming libcurl when it cannot be loaded. Any HTTP status is a
// reply. Thread-safe.
absl::StatusOr<HttpReply> PerformHttpRequest(const HttpRequest& request, std::string_view peer);

}  // namespace dlp::base
