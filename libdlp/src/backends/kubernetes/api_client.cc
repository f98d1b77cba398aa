#include "backends/kubernetes/api_client.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "http/http_client.h"

namespace dlp::internal::k8s {
namespace {

constexpr absl::Duration kRequestTimeout = absl::Seconds(30);
constexpr int kGetAttempts = 4;  // 0.2 s, 0.4 s, 0.8 s between them

}  // namespace

ApiClient::ApiClient(ClusterAccess access) : access_(std::move(access)) {}

std::string ApiClient::Url(const std::string& path, const ApiQuery& query) const {
  std::string url = absl::StrCat(access_.server, path);
  char separator = '?';
  for (const auto& [key, value] : query) {
    absl::StrAppend(&url, std::string(1, separator), UrlEncode(key), "=", UrlEncode(value));
    separator = '&';
  }
  return url;
}

absl::StatusOr<ApiClient::Reply> ApiClient::Perform(std::string_view method, const std::string& url,
                                                    const std::string& body,
                                                    std::string_view content_type,
                                                    const LineSink* sink, absl::Duration timeout,
                                                    absl::Duration idle) const {
  base::HttpRequest request;
  request.method = std::string(method);
  request.url = url;
  request.headers.push_back("Accept: application/json");
  if (!access_.token.empty()) {
    request.headers.push_back(absl::StrCat("Authorization: Bearer ", access_.token));
  }
  if (!content_type.empty()) {
    request.headers.push_back(absl::StrCat("Content-Type: ", std::string(content_type)));
  }
  request.body = body;
  // TLS as the kubeconfig says.
  request.tls = {access_.ca_file,         access_.ca_pem,          access_.client_cert_file,
                 access_.client_cert_pem, access_.client_key_file, access_.client_key_pem,
                 access_.insecure_skip_tls_verify};
  request.timeout = timeout;
  request.idle = idle;
  request.sink = sink;
  return base::PerformHttpRequest(request,
                                  absl::StrCat("the Kubernetes API server at ", access_.server));
}

absl::StatusOr<nlohmann::json> ApiClient::Call(std::string_view method, std::string_view verb,
                                               const ResourceType& type,
                                               std::string_view name_space, std::string_view name,
                                               const std::string& path, const ApiQuery& query,
                                               const std::string& body,
                                               std::string_view content_type) const {
  const std::string url = Url(path, query);
  const int attempts = method == "GET" ? kGetAttempts : 1;  // a repeated POST could 409
  absl::Duration pause = absl::Milliseconds(200);
  absl::Status last;
  for (int attempt = 1; attempt <= attempts; ++attempt, pause *= 2) {
    if (attempt > 1) std::this_thread::sleep_for(absl::ToChronoMilliseconds(pause));  // back-off
    absl::StatusOr<Reply> reply = Perform(method, url, body, content_type, nullptr, kRequestTimeout,
                                          absl::InfiniteDuration());
    if (!reply.ok()) {
      last = reply.status();
      continue;
    }
    if (reply->code >= 200 && reply->code < 300) {
      nlohmann::json doc = nlohmann::json::parse(reply->body, nullptr, false);
      if (doc.is_discarded()) {
        return absl::UnavailableError(absl::StrCat("the Kubernetes API server at ", access_.server,
                                                   " answered ", std::string(verb), " ",
                                                   type.resource, " with non-JSON"));
      }
      return doc;
    }
    last = ApiStatus(reply->code, reply->body, verb, type, name_space, name);
    if (reply->code != 429 && reply->code < 500) break;
  }
  return last;
}

absl::StatusOr<nlohmann::json> ApiClient::Create(const ResourceType& type,
                                                 std::string_view name_space,
                                                 const nlohmann::json& object) const {
  const std::string name = object.contains("metadata") ? object["metadata"].value("name", "") : "";
  return Call("POST", "create", type, name_space, name, type.Path(name_space), {}, object.dump(),
              "application/json");
}

absl::StatusOr<nlohmann::json> ApiClient::Get(const ResourceType& type, std::string_view name_space,
                                              std::string_view name) const {
  return Call("GET", "get", type, name_space, name, type.Path(name_space, name), {}, "", "");
}

absl::StatusOr<nlohmann::json> ApiClient::List(const ResourceType& type,
                                               std::string_view name_space,
                                               std::string_view label_selector,
                                               std::string_view field_selector) const {
  ApiQuery query;
  if (!label_selector.empty()) query.emplace_back("labelSelector", label_selector);
  if (!field_selector.empty()) query.emplace_back("fieldSelector", field_selector);
  return Call("GET", "list", type, name_space, "", type.Path(name_space), query, "", "");
}

absl::Status ApiClient::Delete(const ResourceType& type, std::string_view name_space,
                               std::string_view name) const {
  const nlohmann::json options = {
      {"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"propagationPolicy", "Foreground"}};
  return Call("DELETE", "delete", type, name_space, name, type.Path(name_space, name),
              {{"propagationPolicy", "Foreground"}}, options.dump(), "application/json")
      .status();
}

absl::StatusOr<nlohmann::json> ApiClient::MergePatch(const ResourceType& type,
                                                     std::string_view name_space,
                                                     std::string_view name,
                                                     const nlohmann::json& patch) const {
  return Call("PATCH", "patch", type, name_space, name, type.Path(name_space, name), {},
              patch.dump(), "application/merge-patch+json");
}

absl::StatusOr<std::string> ApiClient::PodLog(std::string_view name_space, std::string_view pod,
                                              const ApiQuery& query) const {
  DLP_ASSIGN_OR_RETURN(
      Reply reply, Perform("GET", Url(kPods.Path(name_space, pod) + "/log", query), "", "", nullptr,
                           kRequestTimeout, absl::InfiniteDuration()));
  if (reply.code >= 200 && reply.code < 300) return std::move(reply.body);
  return ApiStatus(reply.code, reply.body, "get", ResourceType{"", "v1", "pods/log", "Pod"},
                   name_space, pod);
}

absl::Status ApiClient::Stream(const std::string& path, const ApiQuery& query,
                               std::string_view verb, const ResourceType& type,
                               std::string_view name_space, absl::Duration idle,
                               const LineSink& sink) const {
  DLP_ASSIGN_OR_RETURN(
      Reply reply, Perform("GET", Url(path, query), "", "", &sink, absl::InfiniteDuration(), idle));
  if (reply.code < 200 || reply.code >= 300) {
    return ApiStatus(reply.code, reply.body, verb, type, name_space, "");
  }
  if (!reply.stopped && !reply.body.empty()) sink(reply.body);  // a last line without its newline
  return absl::OkStatus();
}

}  // namespace dlp::internal::k8s
