// The Kubernetes API's error answers as dlp statuses (and so exit codes).
#include "absl/strings/str_cat.h"
#include "backends/kubernetes/api_client.h"

namespace dlp::internal::k8s {
namespace {

// "jobsets.jobset.x-k8s.io", as RBAC rules and kubectl name a resource.
std::string QualifiedResource(const nlohmann::json& details, const ResourceType& type) {
  std::string resource = type.resource, group = type.group;
  if (details.is_object()) {
    if (details.contains("kind") && details["kind"].is_string()) {
      resource = details["kind"].get<std::string>();
    }
    if (details.contains("group") && details["group"].is_string()) {
      group = details["group"].get<std::string>();
    }
  }
  return group.empty() ? resource : absl::StrCat(resource, ".", group);
}

}  // namespace

absl::Status ApiStatus(long code, std::string_view body, std::string_view verb_view,
                       const ResourceType& type, std::string_view name_space_view,
                       std::string_view name_view) {
  const std::string verb(verb_view), name_space(name_space_view), name(name_view);
  // The answer's Status object ({"kind":"Status","message":...,"details":...}).
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  std::string message;
  nlohmann::json details;
  if (doc.is_object()) {
    message = doc.value("message", "");
    if (doc.contains("details")) details = doc["details"];
  }
  if (message.empty()) message = std::string(body.substr(0, 200));
  const std::string resource = QualifiedResource(details, type);
  const std::string object =
      absl::StrCat(type.kind, name.empty() ? "" : " ", name, " in namespace ", name_space);
  switch (code) {
    case 400:
    case 422:
      return absl::InvalidArgumentError(
          absl::StrCat("the Kubernetes API server rejected the ", object, ": ", message));
    case 401:
      return absl::UnauthenticatedError(absl::StrCat(
          "the Kubernetes API server did not accept the kubeconfig's credentials (HTTP 401): ",
          message));
    case 403:
      // An RBAC denial is the cluster's configuration, not a dlp token: exit 4.
      return absl::UnauthenticatedError(
          absl::StrCat("forbidden by the cluster's RBAC: may not ", verb, " ", resource,
                       " in namespace ", name_space, " (ask for a Role granting verb \"", verb,
                       "\" on resource \"", resource, "\"): ", message));
    case 404:
      return absl::NotFoundError(
          absl::StrCat(object, " not found", message.empty() ? "" : ": ", message));
    case 409:
      return absl::AlreadyExistsError(absl::StrCat(
          object, " already exists (", message, "); delete it or submit again for a new job id"));
    case 410:
      return absl::AbortedError(absl::StrCat("410 Gone: ", message));
    default:
      return absl::UnavailableError(absl::StrCat("the Kubernetes API server answered HTTP ", code,
                                                 " to ", verb, " ", resource, ": ", message));
  }
}

bool IsGone(const absl::Status& status) { return status.code() == absl::StatusCode::kAborted; }

}  // namespace dlp::internal::k8s
