// The Kubernetes resources dlp reads and writes, and their URL paths.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "backends/kubernetes/render_input.h"  // the labels every object carries
#include "nlohmann/json.hpp"

namespace dlp::internal::k8s {

// A namespaced resource type: "/api/v1/namespaces/NS/pods" for the core group,
// "/apis/GROUP/VERSION/namespaces/NS/RESOURCE" for the others.
struct ResourceType {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;  // plural, lower case: "pods", "jobsets"
  std::string kind;      // "Pod", "JobSet"

  // The collection's path in namespace `name_space`; with `name`, the object's.
  std::string Path(std::string_view name_space, std::string_view name = "") const;
  std::string GroupVersion() const { return group.empty() ? version : group + "/" + version; }
};

inline const ResourceType kConfigMaps{"", "v1", "configmaps", "ConfigMap"};
inline const ResourceType kServices{"", "v1", "services", "Service"};
inline const ResourceType kPods{"", "v1", "pods", "Pod"};
inline const ResourceType kEvents{"", "v1", "events", "Event"};
// Kueue's admission record of a suspended job (v1beta2, Kueue 0.15 and later).
inline const ResourceType kKueueWorkloads{"kueue.x-k8s.io", "v1beta2", "workloads", "Workload"};

// The type of a manifest, from its apiVersion and kind: the core kinds above
// and the workload kinds of the four flavours. InvalidArgument for another kind.
absl::StatusOr<ResourceType> ResourceTypeOf(const nlohmann::json& object);

// The selector of one job's objects (or of every dlp job when `job_id` is empty).
std::string JobSelector(std::string_view job_id = "");
// Pods carry the job id from their template; the controllers that create them
// may leave out other labels.
std::string PodSelector(std::string_view job_id = "");

}  // namespace dlp::internal::k8s
