// One HTTP request and the sink for its response: what HttpClient hands to the
// two ways a request travels, plain HTTP (plain_http.cc, in libdlp) and HTTPS (the
// TLS module, libdlp_https.so, opened on first use by https_module.h). The module
// is a separate shared object, so this is a C-style ABI: plain types, callbacks
// with a context pointer, and an entry point whose name carries the version.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlp::internal {

// Why an exchange ended without a complete response (kNone: it did not).
enum class HttpFailure : int {
  kNone = 0,
  kConnect,  // refused, unreachable, unresolvable
  kConnectTimeout,
  kRead,  // closed early, malformed, or the read timed out
  kWrite,
  kTlsHandshake,
  kTlsLoadCerts,
  kTlsVerify,
  kOther,  // see HttpExchange::detail
};

struct HttpExchange {
  // The request.
  const char* url;     // "http://HOST:PORT" or "https://HOST:PORT", no path
  const char* method;  // "GET", "POST" or "DELETE"
  const char* target;  // "/v1/jobs?state=Running", already encoded
  const char* body;    // POST only
  size_t body_size;
  const char* content_type;  // POST only
  const char* bearer_token;  // "" for none
  const char* ca_file;       // https: "" for the system's CAs
  int verify_server;         // https: 0 skips certificate verification
  int64_t connect_timeout_us;
  int64_t read_timeout_us;  // bounds each wait for data, not the whole response

  // The response: the status once, then the body in order, transfer framing
  // removed. `on_body` returns 0 to stop early (the exchange then ends with kNone).
  void* sink;
  void (*on_status)(void* sink, int status);
  int (*on_body)(void* sink, const char* data, size_t size);

  // Filled by the transport when it fails: a short reason ("connection refused")
  // that HttpClient puts in its message; may stay empty.
  char detail[160];
};

// The TLS module's entry point: performs `exchange` over HTTPS.
using HttpsExchangeFn = HttpFailure (*)(HttpExchange* exchange);
inline constexpr char kHttpsExchangeSymbol[] = "dlp_https_exchange_v1";

}  // namespace dlp::internal
