#include "backends/kubernetes/api_client.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "dlp/status.h"
#include "http/curl_library.h"
#include "http/http_client.h"

namespace dlp::internal::k8s {
namespace {

constexpr absl::Duration kRequestTimeout = absl::Seconds(30);
constexpr int kGetAttempts = 4;  // 0.2 s, 0.4 s, 0.8 s between them

// The response as it arrives: whole (`sink` null), or cut into lines for `sink`
// when the status is 2xx (an error's Status object is kept whole).
struct Receiver {
  const CurlLibrary* lib;
  CURL* curl;
  const LineSink* sink;
  std::string body;      // the whole body, or the partial line not yet passed on
  bool stopped = false;  // the sink asked to stop
  long code = 0;
};

size_t Receive(char* data, size_t size, size_t count, void* context) {
  auto* r = static_cast<Receiver*>(context);
  const size_t bytes = size * count;
  if (r->code == 0) r->lib->easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &r->code);
  r->body.append(data, bytes);
  if (r->sink == nullptr || r->code < 200 || r->code >= 300) return bytes;
  size_t start = 0;
  for (size_t nl; (nl = r->body.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (!(*r->sink)(std::string_view(r->body).substr(start, nl - start))) {
      r->stopped = true;
      return 0;  // ends the transfer (CURLE_WRITE_ERROR)
    }
  }
  r->body.erase(0, start);
  return bytes;
}

curl_blob Blob(const std::string& pem) {
  return curl_blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
}

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
  DLP_ASSIGN_OR_RETURN(const CurlLibrary* lib, LoadCurl());
  CURL* curl = lib->easy_init();
  if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
  curl_slist* headers = lib->slist_append(nullptr, "Accept: application/json");
  if (!access_.token.empty()) {
    headers =
        lib->slist_append(headers, absl::StrCat("Authorization: Bearer ", access_.token).c_str());
  }
  if (!content_type.empty()) {
    headers = lib->slist_append(headers,
                                absl::StrCat("Content-Type: ", std::string(content_type)).c_str());
  }
  const std::string verb(method);
  lib->easy_setopt(curl, CURLOPT_URL, url.c_str());
  lib->easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  lib->easy_setopt(curl, CURLOPT_CUSTOMREQUEST, verb.c_str());
  if (!body.empty()) {
    lib->easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    lib->easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  // TLS as the kubeconfig says.
  if (!access_.ca_file.empty()) lib->easy_setopt(curl, CURLOPT_CAINFO, access_.ca_file.c_str());
  curl_blob ca = Blob(access_.ca_pem), cert = Blob(access_.client_cert_pem),
            key = Blob(access_.client_key_pem);
  if (!access_.ca_pem.empty()) lib->easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
  if (access_.insecure_skip_tls_verify) {
    lib->easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    lib->easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!access_.client_cert_file.empty()) {
    lib->easy_setopt(curl, CURLOPT_SSLCERT, access_.client_cert_file.c_str());
  }
  if (!access_.client_cert_pem.empty()) lib->easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert);
  if (!access_.client_key_file.empty()) {
    lib->easy_setopt(curl, CURLOPT_SSLKEY, access_.client_key_file.c_str());
  }
  if (!access_.client_key_pem.empty()) lib->easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key);
  Receiver receiver{lib, curl, sink};
  lib->easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Receive);
  lib->easy_setopt(curl, CURLOPT_WRITEDATA, &receiver);
  lib->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  if (timeout != absl::InfiniteDuration()) {
    lib->easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(absl::ToInt64Milliseconds(timeout)));
  }
  if (idle != absl::InfiniteDuration()) {
    // Fewer than 1 byte/s for `idle`: the stream is stuck.
    lib->easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    lib->easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                     std::max(1L, static_cast<long>(absl::ToInt64Seconds(idle))));
  }
  lib->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  const CURLcode rc = lib->easy_perform(curl);
  if (receiver.code == 0) lib->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &receiver.code);
  lib->slist_free_all(headers);
  lib->easy_cleanup(curl);
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && receiver.stopped)) {
    return absl::UnavailableError(absl::StrCat("cannot reach the Kubernetes API server at ",
                                               access_.server, ": ", lib->easy_strerror(rc)));
  }
  return Reply{receiver.code, std::move(receiver.body), receiver.stopped};
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
