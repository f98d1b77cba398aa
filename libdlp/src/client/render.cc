// RenderJob (`dlp render`): the backend's Render, or for kubernetes the
// manifests straight from the context's fields, so that rendering needs
// neither a cluster nor a kubeconfig.
#include "backends/kubernetes/render.h"

#include "absl/strings/str_cat.h"
#include "dlp/client.h"
#include "dlp/spec.h"
#include "dlp/status.h"

namespace dlp {

absl::StatusOr<std::string> RenderJob(const ClientOptions& options, const JobSpec& spec,
                                      RenderFormat format) {
  DLP_RETURN_IF_ERROR(ValidateJobSpec(spec));
  constexpr char kKubernetes[] = "kubernetes";
  ClientOptions resolve = options;
  if (options.backend == kKubernetes) resolve.backend.clear();
  DLP_ASSIGN_OR_RETURN(Context context, ResolveContext(resolve));
  if (options.backend == kKubernetes) context.backend = kKubernetes;
  if (context.backend == kKubernetes) return internal::k8s::RenderKubernetes(context, spec, format);
  if (format == RenderFormat::kJson) {
    return absl::InvalidArgumentError(absl::StrCat(
        "-o json: the ", context.backend,
        " backend renders a command line, not objects; -o json is for --backend kubernetes"));
  }
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, CreateBackend(context));
  return backend->Render(spec);
}

}  // namespace dlp
