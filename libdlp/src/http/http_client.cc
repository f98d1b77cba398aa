#include "http/http_client.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "dlp/status.h"
#include "http/exchange.h"
#include "http/https_module.h"
#include "http/plain_http.h"
#include "nlohmann/json.hpp"

namespace dlp::internal {
namespace {

constexpr char kConnectFailedPayload[] = "dlp.dev/connect-failed";
constexpr absl::Duration kConnectTimeout = absl::Seconds(5);
// The most a response that is not a stream may hold, and a line of a stream:
// far more than dlpd sends, far less than a server that never stops sending
// would make a client allocate.
constexpr size_t kMaxWholeBody = size_t{64} << 20;

// "https://host:8470/x" -> "host:8470".
std::string AddressOf(std::string_view url) {
  if (auto pos = url.find("://"); pos != std::string_view::npos) url.remove_prefix(pos + 3);
  return std::string(url.substr(0, url.find('/')));
}

// Asks the kernel why a connect to `address` fails, with a short deadline, so that
// the message can say "connection refused".
std::string ConnectFailureReason(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return "connection failed";
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  struct addrinfo hints = {};
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), address.substr(colon + 1).c_str(), &hints, &found);
      rc != 0) {
    return absl::StrCat("cannot resolve host: ", gai_strerror(rc));
  }
  std::string reason = "connection failed";
  int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd >= 0) {
    int err = connect(fd, found->ai_addr, found->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      struct pollfd pfd = {fd, POLLOUT, 0};
      socklen_t len = sizeof(err);
      err = poll(&pfd, 1, 2000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0
                ? err
                : ETIMEDOUT;
    }
    if (err != 0) reason = absl::AsciiStrToLower(std::strerror(err));
    close(fd);
  }
  freeaddrinfo(found);
  return reason;
}

absl::Status TransportError(const std::string& address, HttpFailure failure,
                            std::string_view detail) {
  std::string reason;
  switch (failure) {
    case HttpFailure::kConnect:
      // The TLS module does not say why a connect failed; ask the kernel again.
      reason = detail.empty() ? ConnectFailureReason(address) : std::string(detail);
      break;
    case HttpFailure::kConnectTimeout:
      reason = "connection timed out";
      break;
    case HttpFailure::kRead:
      reason = "no answer (the connection closed or the read timed out)";
      break;
    case HttpFailure::kWrite:
      reason = "the request could not be sent";
      break;
    case HttpFailure::kTlsHandshake:
      reason = "TLS handshake failed";
      break;
    case HttpFailure::kTlsLoadCerts:
      reason = "cannot load the CA certificates (check ca-file)";
      break;
    case HttpFailure::kTlsVerify:
      reason = "the server's certificate is not trusted (set ca-file in the context)";
      break;
    default:
      reason = detail.empty() ? "unknown error" : absl::AsciiStrToLower(std::string(detail));
  }
  absl::Status status =
      absl::UnavailableError(absl::StrCat("cannot reach dlpd at ", address, ": ", reason));
  if (failure == HttpFailure::kConnect || failure == HttpFailure::kConnectTimeout) {
    status.SetPayload(kConnectFailedPayload, absl::Cord("1"));
  }
  return status;
}

absl::StatusCode CodeFromName(std::string_view name) {
  for (int code = 0; code <= 16; ++code) {
    auto candidate = static_cast<absl::StatusCode>(code);
    if (absl::StatusCodeToString(candidate) == name) return candidate;
  }
  return absl::StatusCode::kUnknown;
}

absl::StatusCode CodeFromHttp(int http_status) {
  switch (http_status) {
    case 400: return absl::StatusCode::kInvalidArgument;
    case 401: return absl::StatusCode::kUnauthenticated;
    case 403: return absl::StatusCode::kPermissionDenied;
    case 404: return absl::StatusCode::kNotFound;
    case 409: return absl::StatusCode::kFailedPrecondition;
    case 429: return absl::StatusCode::kResourceExhausted;
    case 501: return absl::StatusCode::kUnimplemented;
    case 503: return absl::StatusCode::kUnavailable;
    case 504: return absl::StatusCode::kDeadlineExceeded;
    default: return http_status >= 500 ? absl::StatusCode::kInternal
                                       : absl::StatusCode::kUnknown;
  }
}

}  // namespace

absl::Status StatusFromHttpError(int http_status, std::string_view body) {
  absl::StatusCode code = CodeFromHttp(http_status);
  std::string message;
  auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_object() && json.contains("error") && json["error"].is_object()) {
    const auto& error = json["error"];
    if (error.contains("code") && error["code"].is_string()) {
      const absl::StatusCode named = CodeFromName(error["code"].get<std::string>());
      if (named != absl::StatusCode::kUnknown) code = named;
    }
    if (error.contains("message") && error["message"].is_string()) {
      message = error["message"].get<std::string>();
    }
  }
  if (message.empty()) {
    message = absl::StrCat("dlpd answered HTTP ", http_status);
    if (!body.empty() && body.size() < 200) absl::StrAppend(&message, ": ", std::string(body));
  }
  if (code == absl::StatusCode::kOk) code = absl::StatusCode::kUnknown;
  return absl::Status(code, message);
}

bool IsConnectFailure(const absl::Status& status) {
  return status.GetPayload(kConnectFailedPayload).has_value();
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

HttpClient::HttpClient(HttpEndpoint endpoint)
    : endpoint_(std::move(endpoint)), address_(AddressOf(endpoint_.url)) {}

std::string HttpClient::Target(std::string_view path, const Query& query) const {
  std::string target(path);
  char sep = '?';
  for (const auto& [key, value] : query) {
    absl::StrAppend(&target, std::string(1, sep), UrlEncode(key), "=", UrlEncode(value));
    sep = '&';
  }
  return target;
}

namespace {

absl::Status CheckUrl(const HttpEndpoint& endpoint) {
  if (absl::StartsWith(endpoint.url, "http://") || absl::StartsWith(endpoint.url, "https://")) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("server '", endpoint.url, "': expected http://HOST:PORT or https://HOST:PORT"));
}

// Where a response goes: its status, and each piece of its body to `on_body`.
struct ResponseSink {
  int status = 0;
  std::function<bool(std::string_view)> on_body;
};

// A request to `endpoint`, with the sink's callbacks wired in.
HttpExchange NewExchange(const HttpEndpoint& endpoint, const char* method,
                         const std::string& target, absl::Duration read_timeout,
                         ResponseSink& sink) {
  HttpExchange exchange = {};
  exchange.url = endpoint.url.c_str();
  exchange.method = method;
  exchange.target = target.c_str();
  exchange.body = "";
  exchange.content_type = "";
  exchange.bearer_token = endpoint.token.c_str();
  exchange.ca_file = endpoint.ca_file.c_str();
  exchange.verify_server = endpoint.insecure_skip_verify ? 0 : 1;
  exchange.connect_timeout_us = absl::ToInt64Microseconds(kConnectTimeout);
  exchange.read_timeout_us = absl::ToInt64Microseconds(read_timeout);
  exchange.sink = &sink;
  exchange.on_status = [](void* sink, int status) {
    static_cast<ResponseSink*>(sink)->status = status;
  };
  exchange.on_body = [](void* sink, const char* data, size_t size) -> int {
    return static_cast<ResponseSink*>(sink)->on_body(std::string_view(data, size)) ? 1 : 0;
  };
  return exchange;
}

// Sends `exchange` over plain HTTP, or over HTTPS through the TLS module, which is
// loaded here the first time a process needs it.
absl::Status Perform(const std::string& address, HttpExchange& exchange) {
  HttpFailure failure;
  if (absl::StartsWith(exchange.url, "https://")) {
    DLP_ASSIGN_OR_RETURN(HttpsExchangeFn https, LoadHttpsModule());
    failure = https(&exchange);
  } else {
    failure = PlainHttpExchange(exchange);
  }
  if (failure == HttpFailure::kNone) return absl::OkStatus();
  return TransportError(address, failure, exchange.detail);
}

absl::Status TooLarge(const std::string& address, const char* what) {
  return absl::OutOfRangeError(absl::StrCat("dlpd at ", address, " answered ", what,
                                            " of more than ", kMaxWholeBody >> 20,
                                            " MiB; the rest was not read"));
}

// One request whose answer is its whole body (JSON), or the error it stands
// for. The body is read up to kMaxWholeBody, and must arrive within `timeout`.
absl::StatusOr<std::string> WholeBody(const HttpEndpoint& endpoint, const std::string& address,
                                      const char* method, const std::string& target,
                                      std::string_view json_body, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string body;
  absl::Status cut;  // why the body was not read to its end
  ResponseSink sink;
  sink.on_body = [&](std::string_view piece) {
    if (body.size() + piece.size() > kMaxWholeBody) {
      cut = TooLarge(address, "a body");
      return false;
    }
    if (absl::Now() > deadline) {
      cut = absl::DeadlineExceededError(absl::StrCat("dlpd at ", address,
                                                     " did not finish its answer within ",
                                                     absl::FormatDuration(timeout)));
      return false;
    }
    body.append(piece);
    return true;
  };
  HttpExchange exchange = NewExchange(endpoint, method, target, timeout, sink);
  if (std::string_view(method) == "POST") {
    exchange.body = json_body.data();
    exchange.body_size = json_body.size();
    exchange.content_type = "application/json";
  }
  absl::Status sent = Perform(address, exchange);
  DLP_RETURN_IF_ERROR(cut);
  DLP_RETURN_IF_ERROR(sent);
  if (sink.status >= 200 && sink.status < 300) return body;
  return StatusFromHttpError(sink.status, body);
}

}  // namespace

absl::StatusOr<std::string> HttpClient::Get(std::string_view path, const Query& query,
                                            absl::Duration timeout) const {
  DLP_RETURN_IF_ERROR(CheckUrl(endpoint_));
  return WholeBody(endpoint_, address_, "GET", Target(path, query), "", timeout);
}

absl::StatusOr<std::string> HttpClient::Post(std::string_view path, std::string_view json_body,
                                             absl::Duration timeout) const {
  DLP_RETURN_IF_ERROR(CheckUrl(endpoint_));
  return WholeBody(endpoint_, address_, "POST", std::string(path), json_body, timeout);
}

absl::StatusOr<std::string> HttpClient::Delete(std::string_view path,
                                               absl::Duration timeout) const {
  DLP_RETURN_IF_ERROR(CheckUrl(endpoint_));
  return WholeBody(endpoint_, address_, "DELETE", std::string(path), "", timeout);
}

absl::Status HttpClient::StreamLines(std::string_view path, const Query& query,
                                     const std::function<bool(std::string_view)>& on_line,
                                     absl::Duration idle_timeout) const {
  DLP_RETURN_IF_ERROR(CheckUrl(endpoint_));
  std::string pending;  // an incomplete line, or the error body
  bool stopped = false;
  absl::Status cut;
  ResponseSink sink;
  sink.on_body = [&](std::string_view piece) {
    if (pending.size() + piece.size() > kMaxWholeBody) {
      cut = TooLarge(address_, "a line");
      return false;
    }
    pending.append(piece);
    if (sink.status < 200 || sink.status >= 300) return true;
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(pending.data() + start, nl - start);
      if (!line.empty() && !on_line(line)) {
        stopped = true;
        return false;
      }
    }
    pending.erase(0, start);
    return true;
  };
  const std::string target = Target(path, query);
  HttpExchange exchange = NewExchange(endpoint_, "GET", target, idle_timeout, sink);
  absl::Status sent = Perform(address_, exchange);
  if (stopped) return absl::OkStatus();
  DLP_RETURN_IF_ERROR(cut);
  DLP_RETURN_IF_ERROR(sent);
  if (sink.status < 200 || sink.status >= 300) return StatusFromHttpError(sink.status, pending);
  if (!pending.empty()) on_line(pending);
  return absl::OkStatus();
}

absl::Status HttpClient::StreamBody(std::string_view path, const Query& query,
                                    const std::function<bool(std::string_view)>& on_data,
                                    absl::Duration idle_timeout) const {
  DLP_RETURN_IF_ERROR(CheckUrl(endpoint_));
  std::string error_body;
  bool stopped = false;
  ResponseSink sink;
  sink.on_body = [&](std::string_view piece) {
    if (sink.status < 200 || sink.status >= 300) {
      if (error_body.size() < 64 * 1024) error_body.append(piece);
      return true;
    }
    if (on_data(piece)) return true;
    stopped = true;
    return false;
  };
  const std::string target = Target(path, query);
  HttpExchange exchange = NewExchange(endpoint_, "GET", target, idle_timeout, sink);
  absl::Status sent = Perform(address_, exchange);
  if (stopped) return absl::OkStatus();
  DLP_RETURN_IF_ERROR(sent);
  if (sink.status < 200 || sink.status >= 300) return StatusFromHttpError(sink.status, error_body);
  return absl::OkStatus();
}

}  // namespace dlp::internal
