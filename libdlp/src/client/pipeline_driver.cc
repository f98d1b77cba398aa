// The pipeline driver over the backend's PipelineService: only a backend that
// says its pipelines are stepped in the foreground needs the steps.
#include "dlp/pipeline_driver.h"

#include "client/capability.h"
#include "dlp/status.h"

namespace dlp {

bool ForegroundPipelines(const Client& client) {
  const PipelineService* pipelines = client.backend().pipelines();
  return pipelines != nullptr && pipelines->SteppedInForeground();
}

absl::StatusOr<Pipeline> StepPipeline(Client& client, std::string_view id) {
  DLP_ASSIGN_OR_RETURN(PipelineService * pipelines,
                       internal::Offered(client.backend(), client.backend().pipelines()));
  return pipelines->StepPipeline(id);
}

}  // namespace dlp
