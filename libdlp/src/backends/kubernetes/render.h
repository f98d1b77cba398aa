// `dlp render --backend kubernetes`: the manifests of a spec under a context
// (KubernetesBackend::Render and RenderObjects). Needs no cluster and no
// kubeconfig: only the context's fields.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/kubernetes/manifests.h"
#include "dlp/config.h"

namespace dlp::internal::k8s {

// RenderOptions from a context's fields: flavour, namespace, queue, image,
// gpu-resource, gpu-type-label, training-runtime, dlp-run (each optional; RenderOptions'
// defaults otherwise). InvalidArgument for an unknown flavour.
absl::StatusOr<RenderOptions> RenderOptionsFromContext(const Context& context);

// Multi-document YAML ("---" before each object) or a JSON list.
std::string ManifestsToYaml(const std::vector<nlohmann::json>& objects);
std::string ManifestsToJson(const std::vector<nlohmann::json>& objects);

}  // namespace dlp::internal::k8s
