// RenderJob (`dlp render`): the Render of the context's backend, or with
// -o json its ObjectRenderer's objects. Backends render from the context's
// fields alone (Kubernetes needs neither a cluster nor a kubeconfig).
#include "absl/strings/str_cat.h"
#include "client/capability.h"
#include "dlp/client.h"
#include "dlp/spec.h"
#include "dlp/status.h"

namespace dlp {

namespace {

// RenderJob for a spec already validated.
absl::StatusOr<std::string> Render(const ClientOptions& options, const JobSpec& spec,
                                   RenderFormat format) {
  DLP_ASSIGN_OR_RETURN(Context context, ResolveContext(options));
  DLP_ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, CreateBackend(context));
  if (format == RenderFormat::kText) return backend->Render(spec);
  ObjectRenderer* objects = backend->objects();
  if (objects == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("-o json: the ", backend->Name(),
                     " backend renders a command line, not objects; -o json is for a backend "
                     "whose jobs are objects (kubernetes)"));
  }
  return objects->RenderObjects(spec);
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
