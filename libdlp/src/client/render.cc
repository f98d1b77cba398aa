// RenderJob (`dlp render`): the backend's Render, or for kubernetes the
// manifests straight from the context's fields, so that rendering needs
// neither a cluster nor a kubeconfig.
#include "backends/kubernetes/render.h"

#include "absl/strings/str_cat.h"
#include "dlp/client.h"
#include "dlp/spec.h"
#include "dlp/status.h"

namespace dlp {

namespace {

// RenderJob for a spec already validated.
absl::StatusOr<std::string> Render(const ClientOptions& options, const JobSpec& spec,
                                   RenderFormat format) {
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

}  // namespace

absl::StatusOr<std::string> RenderJob(const ClientOptions& options, const JobSpec& spec,
                                      RenderFormat format) {
  DLP_RETURN_IF_ERROR(ValidateJobSpec(spec));
  return Render(options, spec, format);
}

absl::StatusOr<std::vector<RenderedJob>> RenderPipeline(const ClientOptions& options,
                                                        const PipelineSpec& spec,
                                                        RenderFormat format) {
  DLP_RETURN_IF_ERROR(ValidatePipelineSpec(spec));
  DLP_ASSIGN_OR_RETURN(std::vector<size_t> order, PipelineOrder(spec));
  std::vector<RenderedJob> out;
  for (size_t i : order) {
    JobSpec job = spec.jobs[i].spec;
    for (JobDependency& d : job.depends_on) d.job = absl::StrCat("${jobs.", d.job, ".id}");
    DLP_ASSIGN_OR_RETURN(std::string text, Render(options, job, format));
    out.push_back({spec.jobs[i].name, std::move(text)});
  }
  return out;
}

}  // namespace dlp
