#include "http/http_client.h"

#include <httplib.h>
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
#include "nlohmann/json.hpp"

namespace dlp::internal {
namespace {

constexpr char kConnectFailedPayload[] = "dlp.dev/connect-failed";

// "https://host:8470/x" -> "host:8470".
std::string AddressOf(std::string_view url) {
  if (auto pos = url.find("://"); pos != std::string_view::npos) url.remove_prefix(pos + 3);
  return std::string(url.substr(0, url.find('/')));
}

void SetTimeout(httplib::Client& client, absl::Duration timeout, bool read) {
  const int64_t micros = absl::ToInt64Microseconds(timeout);
  const time_t sec = static_cast<time_t>(micros / 1000000);
  const time_t usec = static_cast<time_t>(micros % 1000000);
  if (read) {
    client.set_read_timeout(sec, usec);
  } else {
    client.set_connection_timeout(sec, usec);
  }
}

// httplib does not keep the reason a connect failed; ask the kernel again, with a
// short deadline, so that the message can say "connection refused".
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

absl::Status TransportError(const std::string& address, httplib::Error error) {
  std::string reason;
  switch (error) {
    case httplib::Error::Connection:
      reason = ConnectFailureReason(address);
      break;
    case httplib::Error::ConnectionTimeout:
      reason = "connection timed out";
      break;
    case httplib::Error::Read:
      reason = "no answer (the connection closed or the read timed out)";
      break;
    case httplib::Error::Write:
      reason = "the request could not be sent";
      break;
    case httplib::Error::SSLConnection:
      reason = "TLS handshake failed";
      break;
    case httplib::Error::SSLLoadingCerts:
      reason = "cannot load the CA certificates (check ca-file)";
      break;
    case httplib::Error::SSLServerVerification:
      reason = "the server's certificate is not trusted (set ca-file in the context)";
      break;
    default:
      reason = absl::AsciiStrToLower(httplib::to_string(error));
  }
  absl::Status status =
      absl::UnavailableError(absl::StrCat("cannot reach dlpd at ", address, ": ", reason));
  if (error == httplib::Error::Connection || error == httplib::Error::ConnectionTimeout) {
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

std::unique_ptr<httplib::Client> MakeClient(const HttpEndpoint& endpoint,
                                            absl::Duration read_timeout) {
  auto client = std::make_unique<httplib::Client>(endpoint.url);
  SetTimeout(*client, absl::Seconds(5), /*read=*/false);
  SetTimeout(*client, read_timeout, /*read=*/true);
  if (!endpoint.token.empty()) client->set_bearer_token_auth(endpoint.token);
  if (!endpoint.ca_file.empty()) client->set_ca_cert_path(endpoint.ca_file);
  client->enable_server_certificate_verification(!endpoint.insecure_skip_verify);
  return client;
}

absl::StatusOr<std::string> Finish(const std::string& address, const httplib::Result& result) {
  if (!result) return TransportError(address, result.error());
  if (result->status >= 200 && result->status < 300) return result->body;
  return StatusFromHttpError(result->status, result->body);
}

absl::Status CheckUrl(const HttpEndpoint& endpoint) {
  if (absl::StartsWith(endpoint.url, "http://") || absl::StartsWith(endpoint.url, "https://")) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("server '", endpoint.url, "': expected http://HOST:PORT or https://HOST:PORT"));
}

}  // namespace

absl::StatusOr<std::string> HttpClient::Get(std::string_view path, const Query& query,
                                            absl::Duration timeout) const {
  if (auto status = CheckUrl(endpoint_); !status.ok()) return status;
  auto client = MakeClient(endpoint_, timeout);
  return Finish(address_, client->Get(Target(path, query).c_str()));
}

absl::StatusOr<std::string> HttpClient::Post(std::string_view path, std::string_view json_body,
                                             absl::Duration timeout) const {
  if (auto status = CheckUrl(endpoint_); !status.ok()) return status;
  auto client = MakeClient(endpoint_, timeout);
  return Finish(address_, client->Post(std::string(path).c_str(), json_body.data(),
                                       json_body.size(), "application/json"));
}

absl::Status HttpClient::StreamLines(std::string_view path, const Query& query,
                                     const std::function<bool(std::string_view)>& on_line,
                                     absl::Duration idle_timeout) const {
  if (auto status = CheckUrl(endpoint_); !status.ok()) return status;
  auto client = MakeClient(endpoint_, idle_timeout);
  int http_status = 0;
  std::string pending;  // an incomplete line, or the error body
  bool stopped = false;
  auto result = client->Get(
      Target(path, query).c_str(),
      [&](const httplib::Response& response) {
        http_status = response.status;
        return true;
      },
      [&](const char* data, size_t size) {
        pending.append(data, size);
        if (http_status < 200 || http_status >= 300) return true;
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
      });
  if (stopped) return absl::OkStatus();
  if (!result) return TransportError(address_, result.error());
  if (http_status < 200 || http_status >= 300) return StatusFromHttpError(http_status, pending);
  if (!pending.empty()) on_line(pending);
  return absl::OkStatus();
}

}  // namespace dlp::internal
