#include "backends/kubernetes/resources.h"

#include "absl/strings/str_cat.h"
#include "backends/kubernetes/manifests.h"
#include "http/http_client.h"

namespace dlp::internal::k8s {

std::string ResourceType::Path(std::string_view name_space, std::string_view name) const {
  std::string path =
      group.empty() ? absl::StrCat("/api/", version) : absl::StrCat("/apis/", group, "/", version);
  absl::StrAppend(&path, "/namespaces/", UrlEncode(name_space), "/", resource);
  if (!name.empty()) absl::StrAppend(&path, "/", UrlEncode(name));
  return path;
}

absl::StatusOr<ResourceType> ResourceTypeOf(const nlohmann::json& object) {
  const std::string api_version = object.value("apiVersion", "");
  const std::string kind = object.value("kind", "");
  for (const ResourceType* core : {&kConfigMaps, &kServices, &kPods}) {
    if (core->kind == kind && core->GroupVersion() == api_version) return *core;
  }
  for (const char* flavour : {"jobset", "job", "trainjob", "volcano"}) {
    absl::StatusOr<WorkloadResource> workload = WorkloadResourceOf(flavour);
    if (!workload.ok()) continue;
    ResourceType type{workload->group, workload->version, workload->resource, workload->kind};
    if (type.kind == kind && type.GroupVersion() == api_version) return type;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("dlp does not create objects of kind ", kind, " (", api_version, ")"));
}

std::string JobSelector(std::string_view job_id) {
  std::string selector = absl::StrCat(kManagedByLabel, "=dlp");
  if (!job_id.empty()) absl::StrAppend(&selector, ",", kJobIdLabel, "=", std::string(job_id));
  return selector;
}

std::string PodSelector(std::string_view job_id) {
  return job_id.empty() ? kJobIdLabel : absl::StrCat(kJobIdLabel, "=", std::string(job_id));
}

}  // namespace dlp::internal::k8s
