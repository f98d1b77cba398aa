// A small HTTP+JSON client for the dlpd API: adds the bearer token, maps
// transport failures and JSON error bodies to absl statuses, and streams NDJSON
// line by line. http:// goes over plain sockets (plain_http.h); https:// through
// the TLS module, loaded on first use (https_module.h), so that a process that
// never speaks TLS never loads OpenSSL. One connection per call, so an
// HttpClient is safe to use from several threads at once.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace dlp::internal {

struct HttpEndpoint {
  std::string url;    // "http://127.0.0.1:8470" or "https://gpu-box:8470"
  std::string token;  // bearer token; empty: none
  std::string ca_file;        // https: trust these CAs instead of the system's
  bool insecure_skip_verify = false;  // https: do not verify the server's certificate
};

// Query parameters in order; a key may repeat (label=a=b&label=c=d).
using Query = std::vector<std::pair<std::string, std::string>>;

class HttpClient {
 public:
  explicit HttpClient(HttpEndpoint endpoint);

  // "127.0.0.1:8470": what error messages call the server.
  const std::string& address() const { return address_; }
  const HttpEndpoint& endpoint() const { return endpoint_; }

  // Returns the body of a 2xx response. Errors: Unavailable ("cannot reach dlpd at
  // ADDR: connection refused") for transport failures, OutOfRange for a body of
  // more than 64 MiB (not read further), DeadlineExceeded when the whole
  // response took longer than `timeout`, else the code named by the response's
  // {"error":{"code","message"}} or derived from the HTTP status.
  absl::StatusOr<std::string> Get(std::string_view path, const Query& query = {},
                                  absl::Duration timeout = absl::Seconds(30)) const;
  absl::StatusOr<std::string> Post(std::string_view path, std::string_view json_body,
                                   absl::Duration timeout = absl::Seconds(30)) const;
  absl::StatusOr<std::string> Delete(std::string_view path,
                                     absl::Duration timeout = absl::Seconds(30)) const;

  // GETs a chunked response and calls `on_line` for each complete line (without
  // the newline); `on_line` returns false to stop early (then OK is returned).
  // `idle_timeout` bounds the wait for each chunk; a line (or an error body) of
  // more than 64 MiB is OutOfRange.
  absl::Status StreamLines(std::string_view path, const Query& query,
                           const std::function<bool(std::string_view)>& on_line,
                           absl::Duration idle_timeout) const;
  // GETs a response of any size and calls `on_data` with each piece of a 2xx
  // body in order (an error body is read whole and returned as a status);
  // `on_data` returns false to stop early (then OK is returned).
  absl::Status StreamBody(std::string_view path, const Query& query,
                          const std::function<bool(std::string_view)>& on_data,
                          absl::Duration idle_timeout) const;

 private:
  std::string Target(std::string_view path, const Query& query) const;

  HttpEndpoint endpoint_;
  std::string address_;
};

// True when `status` says the request never reached the server (the connection was
// refused or failed), so retrying it elsewhere cannot duplicate its effect.
bool IsConnectFailure(const absl::Status& status);

// Percent-encodes a path segment or query value.
std::string UrlEncode(std::string_view text);

// Maps an HTTP error response to a status: the JSON error body when present.
absl::Status StatusFromHttpError(int http_status, std::string_view body);

}  // namespace dlp::internal
