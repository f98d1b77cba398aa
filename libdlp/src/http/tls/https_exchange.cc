// libdlp_https.so: the HTTPS transport of libdlp's HTTP client, over cpp-httplib
// built with OpenSSL. A module of its own so that only processes that talk to an
// https:// server load OpenSSL (see http/https_module.h); it uses nothing from
// libdlp but the exchange ABI (http/exchange.h).
#include <httplib.h>

#include <algorithm>
#include <exception>
#include <string>

#include "http/exchange.h"

namespace dlp::internal {
namespace {

void SetDetail(HttpExchange& exchange, const std::string& text) {
  const size_t n = std::min(text.size(), sizeof exchange.detail - 1);
  text.copy(exchange.detail, n);
  exchange.detail[n] = '\0';
}

HttpFailure FailureOf(httplib::Error error, HttpExchange& exchange) {
  switch (error) {
    case httplib::Error::Success:
      return HttpFailure::kNone;
    case httplib::Error::Connection:
      return HttpFailure::kConnect;
    case httplib::Error::ConnectionTimeout:
      return HttpFailure::kConnectTimeout;
    case httplib::Error::Read:
      return HttpFailure::kRead;
    case httplib::Error::Write:
      return HttpFailure::kWrite;
    case httplib::Error::SSLConnection:
      return HttpFailure::kTlsHandshake;
    case httplib::Error::SSLLoadingCerts:
      return HttpFailure::kTlsLoadCerts;
    case httplib::Error::SSLServerVerification:
      return HttpFailure::kTlsVerify;
    default:
      SetDetail(exchange, httplib::to_string(error));
      return HttpFailure::kOther;
  }
}

HttpFailure Exchange(HttpExchange& exchange) {
  httplib::Client client(exchange.url);
  client.set_connection_timeout(exchange.connect_timeout_us / 1000000,
                                exchange.connect_timeout_us % 1000000);
  client.set_read_timeout(exchange.read_timeout_us / 1000000, exchange.read_timeout_us % 1000000);
  if (exchange.bearer_token[0] != '\0') client.set_bearer_token_auth(exchange.bearer_token);
  if (exchange.ca_file[0] != '\0') client.set_ca_cert_path(exchange.ca_file);
  client.enable_server_certificate_verification(exchange.verify_server != 0);

  if (std::string(exchange.method) == "POST") {
    httplib::Result result =
        client.Post(exchange.target, exchange.body, exchange.body_size, exchange.content_type);
    if (!result) return FailureOf(result.error(), exchange);
    exchange.on_status(exchange.sink, result->status);
    exchange.on_body(exchange.sink, result->body.data(), result->body.size());
    return HttpFailure::kNone;
  }
  if (std::string(exchange.method) == "DELETE") {
    httplib::Result result = client.Delete(exchange.target);
    if (!result) return FailureOf(result.error(), exchange);
    exchange.on_status(exchange.sink, result->status);
    exchange.on_body(exchange.sink, result->body.data(), result->body.size());
    return HttpFailure::kNone;
  }
  bool stopped = false;
  httplib::Result result = client.Get(
      exchange.target,
      [&](const httplib::Response& response) {
        exchange.on_status(exchange.sink, response.status);
        return true;
      },
      [&](const char* data, size_t size) {
        stopped = exchange.on_body(exchange.sink, data, size) == 0;
        return !stopped;
      });
  if (stopped) return HttpFailure::kNone;
  return result ? HttpFailure::kNone : FailureOf(result.error(), exchange);
}

}  // namespace
}  // namespace dlp::internal

// The one exported symbol (the module is built with hidden visibility).
extern "C" __attribute__((visibility("default"))) dlp::internal::HttpFailure dlp_https_exchange_v1(
    dlp::internal::HttpExchange* exchange) {
  try {
    return dlp::internal::Exchange(*exchange);
  } catch (const std::exception& e) {  // no exception crosses the C boundary
    dlp::internal::SetDetail(*exchange, e.what());
    return dlp::internal::HttpFailure::kOther;
  }
}
