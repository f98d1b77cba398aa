// A client of the Kubernetes API over libcurl (loaded on first use): bearer
// token or client certificate, the cluster's CA, JSON in and out, and streamed
// responses (watch events, log follow) line by line. One connection per call,
// so an ApiClient is safe to use from several threads at once.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "backends/kubernetes/kubeconfig.h"
#include "backends/kubernetes/resources.h"
#include "base/http/curl_request.h"
#include "nlohmann/json.hpp"

namespace dlp::internal::k8s {

// Query parameters in order; values are encoded by the client.
using ApiQuery = std::vector<std::pair<std::string, std::string>>;

// Called for each line of a streamed response; false stops the stream (OK).
using base::LineSink;

class ApiClient {
 public:
  explicit ApiClient(ClusterAccess access);

  const ClusterAccess& access() const { return access_; }

  // Each returns the server's object (or list). Errors: ApiStatus's mapping of
  // the HTTP answer, Unavailable when the server cannot be reached (GETs are
  // retried with back-off on 429/5xx and transport errors first).
  absl::StatusOr<nlohmann::json> Create(const ResourceType& type, std::string_view name_space,
                                        const nlohmann::json& object) const;
  absl::StatusOr<nlohmann::json> Get(const ResourceType& type, std::string_view name_space,
                                     std::string_view name) const;
  absl::StatusOr<nlohmann::json> List(const ResourceType& type, std::string_view name_space,
                                      std::string_view label_selector,
                                      std::string_view field_selector = "") const;
  // Deletes with propagationPolicy=Foreground: dependents (a JobSet's Jobs and
  // their pods) go first.
  absl::Status Delete(const ResourceType& type, std::string_view name_space,
                      std::string_view name) const;
  // A JSON merge patch (RFC 7386): `{"spec":{"suspend":true}}`, annotations.
  absl::StatusOr<nlohmann::json> MergePatch(const ResourceType& type, std::string_view name_space,
                                            std::string_view name,
                                            const nlohmann::json& patch) const;
  // A pod's log, whole (tail_lines < 0) or its last lines.
  absl::StatusOr<std::string> PodLog(std::string_view name_space, std::string_view pod,
                                     const ApiQuery& query) const;

  // GETs `path` and calls `sink` for each complete line. OK when the server
  // ends the response or `sink` stops it; Unavailable when the connection
  // drops or no byte arrives for `idle`; else the HTTP answer's mapping.
  // `verb` and `type` name the request in errors ("watch", pods).
  absl::Status Stream(const std::string& path, const ApiQuery& query, std::string_view verb,
                      const ResourceType& type, std::string_view name_space, absl::Duration idle,
                      const LineSink& sink) const;

 private:
  using Reply = base::HttpReply;
  absl::StatusOr<Reply> Perform(std::string_view method, const std::string& url,
                                const std::string& body, std::string_view content_type,
                                const LineSink* sink, absl::Duration timeout,
                                absl::Duration idle) const;
  absl::StatusOr<nlohmann::json> Call(std::string_view method, std::string_view verb,
                                      const ResourceType& type, std::string_view name_space,
                                      std::string_view name, const std::string& path,
                                      const ApiQuery& query, const std::string& body,
                                      std::string_view content_type) const;
  std::string Url(const std::string& path, const ApiQuery& query) const;

  ClusterAccess access_;
};

// Maps a non-2xx answer (with its Status object in `body`) for `verb` on
// `type`/`name`: 403 -> Unauthenticated (exit 4) naming the RBAC verb and
// resource, 404 -> NotFound, 409 -> AlreadyExists, 410 -> Aborted (IsGone),
// 400/422 -> InvalidArgument, 401 -> Unauthenticated, others -> Unavailable.
absl::Status ApiStatus(long code, std::string_view body, std::string_view verb,
                       const ResourceType& type, std::string_view name_space,
                       std::string_view name);

// True for 410 Gone: a watch's resourceVersion is too old; list again.
bool IsGone(const absl::Status& status);

}  // namespace dlp::internal::k8s
