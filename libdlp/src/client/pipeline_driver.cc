#include "dlp/pipeline_driver.h"

#include <memory>

#include "backends/kubernetes/kubernetes_backend.h"
#include "dlp/status.h"

namespace dlp {
namespace {

// The client's backend when it is one that needs a driver; null elsewhere.
absl::StatusOr<std::unique_ptr<Backend>> Driven(const Client& client) {
  if (client.context().backend != "kubernetes") return std::unique_ptr<Backend>();
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, CreateBackend(client.context()));
  if (dynamic_cast<internal::k8s::KubernetesBackend*>(backend.get()) == nullptr) {
    return std::unique_ptr<Backend>();
  }
  return backend;
}

}  // namespace

bool ForegroundPipelines(const Client& client) {
  absl::StatusOr<std::unique_ptr<Backend>> backend = Driven(client);
  return backend.ok() && *backend != nullptr;
}

absl::StatusOr<Pipeline> StepPipeline(Client& client, std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, Driven(client));
  if (backend == nullptr) return client.GetPipeline(id);
  return static_cast<internal::k8s::KubernetesBackend&>(*backend).StepPipeline(id);
}

}  // namespace dlp
