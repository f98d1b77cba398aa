// Client's pipeline calls: validated here, done by the backend's PipelineService.
#include "client/capability.h"
#include "dlp/client.h"
#include "dlp/status.h"

namespace dlp {

using internal::Offered;

absl::StatusOr<Pipeline> Client::SubmitPipeline(const PipelineSpec& spec) {
  DLP_RETURN_IF_ERROR(ValidatePipelineSpec(spec));
  DLP_ASSIGN_OR_RETURN(PipelineService * pipelines, Offered(*backend_, backend_->pipelines()));
  return pipelines->SubmitPipeline(spec);
}

absl::StatusOr<Pipeline> Client::GetPipeline(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(PipelineService * pipelines, Offered(*backend_, backend_->pipelines()));
  return pipelines->GetPipeline(id);
}

absl::StatusOr<std::vector<Pipeline>> Client::ListPipelines() {
  DLP_ASSIGN_OR_RETURN(PipelineService * pipelines, Offered(*backend_, backend_->pipelines()));
  return pipelines->ListPipelines();
}

absl::StatusOr<Pipeline> Client::CancelPipeline(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(PipelineService * pipelines, Offered(*backend_, backend_->pipelines()));
  return pipelines->CancelPipeline(id);
}

absl::StatusOr<Pipeline> Client::DeletePipeline(std::string_view id, bool force) {
  DLP_ASSIGN_OR_RETURN(PipelineService * pipelines, Offered(*backend_, backend_->pipelines()));
  return pipelines->DeletePipeline(id, force);
}

}  // namespace dlp
