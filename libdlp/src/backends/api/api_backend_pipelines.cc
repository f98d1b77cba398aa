// The pipeline calls of the dlpd API backend: /v1/pipelines (docs/api.md).
#include "absl/strings/str_cat.h"
#include "backends/api/api_backend.h"
#include "dlp/status.h"

namespace dlp::internal {

absl::StatusOr<Pipeline> ApiBackend::SubmitPipeline(const PipelineSpec& spec) {
  DLP_ASSIGN_OR_RETURN(std::string reply, PostBody("/v1/pipelines", PipelineSpecToJson(spec)));
  return PipelineFromJson(reply);
}

absl::StatusOr<Pipeline> ApiBackend::GetPipeline(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody(absl::StrCat("/v1/pipelines/", UrlEncode(id))));
  return PipelineFromJson(reply);
}

absl::StatusOr<std::vector<Pipeline>> ApiBackend::ListPipelines() {
  DLP_ASSIGN_OR_RETURN(std::string reply, GetBody("/v1/pipelines"));
  return PipelinesFromJson(reply);
}

absl::StatusOr<Pipeline> ApiBackend::CancelPipeline(std::string_view id) {
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       PostBody(absl::StrCat("/v1/pipelines/", UrlEncode(id), "/cancel"), "{}"));
  return PipelineFromJson(reply);
}

absl::StatusOr<Pipeline> ApiBackend::DeletePipeline(std::string_view id, bool force) {
  DLP_ASSIGN_OR_RETURN(std::string reply,
                       ForcedDeleteBody(absl::StrCat("/v1/pipelines/", UrlEncode(id)), force));
  return PipelineFromJson(reply);
}

}  // namespace dlp::internal
