// Client's pipeline calls: validated here, done by the backend.
#include "dlp/client.h"
#include "dlp/status.h"

namespace dlp {

absl::StatusOr<Pipeline> Client::SubmitPipeline(const PipelineSpec& spec) {
  DLP_RETURN_IF_ERROR(ValidatePipelineSpec(spec));
  return backend_->SubmitPipeline(spec);
}

absl::StatusOr<Pipeline> Client::GetPipeline(std::string_view id) {
  return backend_->GetPipeline(id);
}

absl::StatusOr<std::vector<Pipeline>> Client::ListPipelines() { return backend_->ListPipelines(); }

absl::StatusOr<Pipeline> Client::CancelPipeline(std::string_view id) {
  return backend_->CancelPipeline(id);
}

absl::StatusOr<Pipeline> Client::DeletePipeline(std::string_view id, bool force) {
  return backend_->DeletePipeline(id, force);
}

}  // namespace dlp
